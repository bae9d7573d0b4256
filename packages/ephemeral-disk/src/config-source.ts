// Copies a config volume's visible content (configMap, secret, downwardAPI, serviceAccount, sysprep) into a
// staging directory this call made, so the ISO tool only ever reads files we wrote, named relative to its working
// directory. Handing it the volume's own paths fails two ways: a launcher holding a capability (a non-root pod's
// NET_BIND_SERVICE) cannot be reached through /proc/<pid>/fd by the tool's access(2), which makes genisoimage skip
// files silently; and the tool follows every link, also one planted to point out of the pod's directories.
//
// Kubernetes' atomic writer makes each visible key a relative link into the volume (`key -> ..data/key`,
// `..data -> ..2024_…`). Links are therefore followed here, but by hand, one component at a time through held
// directory descriptors: a link may go up with `..` only as far as the volume's directory and never be absolute,
// and every component is opened with O_NOFOLLOW, so a swap after the check fails instead of being followed.
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fdPath } from './beneath.js';
import { InvalidRequestError, UnsafeConfigEntryError } from './errors.js';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// O_NONBLOCK: a planted FIFO must fail the type check, not hang the launcher.
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
// As the kernel's own limit on links in one path; also ends a link loop.
const MAX_LINKS = 40;
// Deeper than any downwardAPI item path; also ends a directory link that points at its own parent.
const MAX_DEPTH = 16;

type Resolved = { kind: 'file'; handle: FileHandle; mode: number } | { kind: 'dir'; handle: FileHandle };

class Walk {
  constructor(
    readonly sourceDir: string,
    private readonly root: FileHandle,
  ) {}

  refuse(entry: string, reason: string): never {
    throw new UnsafeConfigEntryError(this.sourceDir, entry, reason);
  }

  /** Opens `entry` (a path relative to the volume) following only links that stay inside the volume. */
  async resolve(entry: string): Promise<Resolved> {
    const held: FileHandle[] = [];
    const top = () => held.at(-1) ?? this.root;
    const pending = entry.split('/');
    let links = 0;
    try {
      while (pending.length > 0) {
        const part = pending.shift()!;
        if (part === '' || part === '.') continue;
        if (part === '..') {
          if (held.length === 0) this.refuse(entry, 'a link leads out of the volume');
          await held.pop()!.close();
          continue;
        }
        const path = join(fdPath(top()), part);
        const info = await lstat(path).catch(() => this.refuse(entry, `${part} cannot be read`));
        if (info.isSymbolicLink()) {
          if (++links > MAX_LINKS) this.refuse(entry, 'too many links');
          const target = await readlink(path);
          if (target.startsWith('/')) this.refuse(entry, `a link points to the absolute path ${target}`);
          pending.unshift(...target.split('/'));
          continue;
        }
        const last = pending.every((p) => p === '' || p === '.');
        if (info.isDirectory()) {
          held.push(await open(path, DIR_FLAGS).catch(() => this.refuse(entry, `${part} changed while read`)));
          continue;
        }
        if (!last || !info.isFile()) this.refuse(entry, `${part} is not a regular file or directory`);
        const handle = await open(path, FILE_FLAGS).catch(() => this.refuse(entry, `${part} changed while read`));
        const stats = await handle.stat();
        if (!stats.isFile()) {
          await handle.close();
          this.refuse(entry, `${part} is not a regular file`);
        }
        return { kind: 'file', handle, mode: stats.mode & 0o777 };
      }
      // A path that ends in a directory (or in the volume itself, which only a hostile link names).
      if (held.length === 0) this.refuse(entry, 'a link points at the volume itself');
      return { kind: 'dir', handle: held.pop()! };
    } finally {
      await Promise.all(held.map((h) => h.close()));
    }
  }
}

/**
 * The entries that go into the ISO. Kubernetes' atomic-writer internals ("..data", "..2024_01_01_…") are left
 * out on purpose: the visible keys are links into them, so including the internals would put every file twice.
 */
export async function configEntries(sourceDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(sourceDir);
  } catch (error) {
    throw new InvalidRequestError(
      'source_dir',
      `${sourceDir} cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  return names.filter((name) => !name.startsWith('..')).sort();
}

async function copyFile(from: FileHandle, mode: number, to: string): Promise<void> {
  const out = await open(to, WRITE_FLAGS, 0o600);
  try {
    await out.writeFile(await from.readFile());
    // The ISO's Rock Ridge records keep the mode the volume gave the key (a secret's defaultMode).
    await out.chmod(mode);
  } finally {
    await out.close();
  }
}

/**
 * Copies every visible entry of `sourceDir` (directories recursively) into `staging`, an empty directory reached
 * through a held descriptor, and returns the relative paths written (directories included), sorted.
 */
export async function stageConfigSource(sourceDir: string, staging: string): Promise<string[]> {
  let root: FileHandle;
  try {
    root = await open(sourceDir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (error) {
    throw new InvalidRequestError(
      'source_dir',
      `${sourceDir} cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const walk = new Walk(sourceDir, root);
  const written: string[] = [];
  const copy = async (entry: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) walk.refuse(entry, `nested deeper than ${MAX_DEPTH} directories`);
    const found = await walk.resolve(entry);
    try {
      if (found.kind === 'file') {
        await copyFile(found.handle, found.mode, join(staging, entry));
      } else {
        await mkdir(join(staging, entry), { mode: 0o755 });
        const names = (await readdir(fdPath(found.handle))).sort();
        for (const name of names) await copy(`${entry}/${name}`, depth + 1);
      }
      written.push(entry);
    } finally {
      await found.handle.close();
    }
  };
  try {
    for (const name of await configEntries(sourceDir)) await copy(name, 0);
  } finally {
    await root.close();
  }
  return written.sort();
}
