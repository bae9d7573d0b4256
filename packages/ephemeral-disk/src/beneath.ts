// Paths under the directories this package writes to are opened without following symbolic links: whoever
// can write in the pod's disk directories (a compromised QEMU, another container sharing the volume) could
// otherwise plant `disk-data/<vol> -> /somewhere` and have a layer, disk or ISO written there, or plant a
// `disk.qcow2` link and have a foreign file "reused" as the guest's disk.
//
// Each directory is opened component by component with O_NOFOLLOW | O_DIRECTORY and kept open; later
// operations (ours and the tools') go through `/proc/<pid>/fd/<n>/<name>`, which the kernel resolves to the
// directory we opened, so a component swapped for a link after the check changes nothing.
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UnsafePathError } from './errors.js';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: opening a planted FIFO must fail the type check, not hang the launcher.
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A path that resolves through an open descriptor of this process (usable by child tools too). */
export function fdPath(handle: FileHandle): string {
  return `/proc/${process.pid}/fd/${handle.fd}`;
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** A directory held open; `at(name)` names an entry of exactly this directory. */
export class PinnedDir {
  constructor(
    /** The directory as the caller named it (for messages and results). */
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** The path of `name` inside this directory, resolved through the open descriptor. */
  at(name: string): string {
    return join(fdPath(this.handle), name);
  }

  /** The path of `name` as the caller would write it (what QEMU and libvirt will be told). */
  shown(name: string): string {
    return join(this.path, name);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

async function openDirNoFollow(path: string, shown: string): Promise<FileHandle> {
  try {
    return await open(path, DIR_FLAGS);
  } catch (error) {
    if (code(error) === 'ELOOP') throw new UnsafePathError(shown, 'symlink');
    if (code(error) === 'ENOTDIR') {
      // With O_DIRECTORY a link to a directory fails as ENOTDIR, not ELOOP: tell the two apart for the message.
      const link = await lstat(path).then(
        (info) => info.isSymbolicLink(),
        () => false,
      );
      throw new UnsafePathError(shown, link ? 'symlink' : 'not a directory');
    }
    throw error;
  }
}

async function makeDir(path: string, mode: number): Promise<void> {
  await mkdir(path, { mode }).catch((error: unknown) => {
    if (code(error) !== 'EEXIST') throw error;
  });
}

/**
 * Opens `dir` and then each of `parts` below it, creating what is missing with `mode`. The parent of `dir`
 * is the caller's and may be reached through links (e.g. /var/run -> /run); `dir` itself and every part must
 * be real directories.
 */
export async function pinDirectory(dir: string, parts: readonly string[] = [], mode = 0o755): Promise<PinnedDir> {
  const absolute = resolve(dir);
  const parent = dirname(absolute);
  await mkdir(parent, { recursive: true, mode });
  let current = await open(parent, constants.O_RDONLY | constants.O_DIRECTORY);
  let shown = parent;
  try {
    for (const part of [basename(absolute), ...parts]) {
      const next = join(fdPath(current), part);
      shown = join(shown, part);
      await makeDir(next, mode);
      const opened = await openDirNoFollow(next, shown);
      await current.close();
      current = opened;
    }
  } catch (error) {
    await current.close();
    throw error;
  }
  return new PinnedDir(shown, current);
}

export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * Opens an existing entry without following a link; undefined when there is none. Anything but a regular
 * file (a link, a directory, a FIFO, a device) is refused.
 */
export async function openExistingFile(dir: PinnedDir, name: string): Promise<OpenedFile | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(dir.at(name), FILE_FLAGS);
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    if (code(error) === 'ELOOP') throw new UnsafePathError(dir.shown(name), 'symlink');
    throw error;
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new UnsafePathError(dir.shown(name), 'not a regular file');
  }
  return { handle, stats };
}

/** Creates `name` exclusively (never through a link, never over anything) and returns it open for writing. */
export async function createExclusive(dir: PinnedDir, name: string, mode: number): Promise<FileHandle> {
  const flags = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  return open(dir.at(name), flags, mode);
}

/** Refuses an existing entry that is not a regular file (a planted link or FIFO) before it is replaced. */
export async function refuseNonRegular(dir: PinnedDir, name: string): Promise<void> {
  const existing = await openExistingFile(dir, name);
  await existing?.handle.close();
}
