// Files are made under a temporary name in their final directory and then published in one step, so a
// reader (libvirt, QEMU, a second launcher call) never sees half of one and a crash leaves only a temp file,
// which the next call removes.
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { link, readdir, rename, rm, stat, unlink } from 'node:fs/promises';

const TEMP_MARK = '.tmp-';
// A temp file this old cannot belong to a live call (no create takes minutes), even if its pid was reused.
const STALE_AGE_MS = 10 * 60 * 1000;

/** `<dir>/.<base>.tmp-<pid>-<random>`: hidden, in the same directory (same filesystem) as the final file. */
export function tempPathFor(finalPath: string): string {
  const token = randomBytes(6).toString('hex');
  return join(dirname(finalPath), `.${basename(finalPath)}${TEMP_MARK}${process.pid}-${token}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes temp files of `finalPath` left by crashed processes; those of live calls are kept. */
export function removeStaleTemps(finalPath: string): Promise<string[]> {
  return removeStaleEntries(dirname(finalPath), `.${basename(finalPath)}${TEMP_MARK}`);
}

/**
 * Removes entries of `dir` named `<prefix><pid>-...` (files or directories) whose process is gone, or which
 * are older than any live call could be.
 */
export async function removeStaleEntries(dir: string, prefix: string): Promise<string[]> {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return removed;
  }
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue;
    const pid = Number(entry.slice(prefix.length).split('-')[0]);
    const path = join(dir, entry);
    let stale = !Number.isInteger(pid) || pid <= 0 || !processAlive(pid);
    if (!stale) {
      const info = await stat(path).catch(() => undefined);
      stale = info !== undefined && Date.now() - info.mtimeMs > STALE_AGE_MS;
    }
    if (!stale) continue;
    if (
      await rm(path, { recursive: true, force: true }).then(
        () => true,
        () => false,
      )
    )
      removed.push(path);
  }
  return removed;
}

/**
 * Publishes `temp` as `finalPath` only if nothing is there yet (link(2) fails with EEXIST instead of
 * replacing). Returns false when another call won; the temp file is removed either way.
 */
export async function publishNoClobber(temp: string, finalPath: string): Promise<boolean> {
  try {
    await link(temp, finalPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Publishes `temp` as `finalPath`, replacing an older version atomically (ISOs are rebuilt every start). */
export async function publishReplace(temp: string, finalPath: string): Promise<void> {
  try {
    await rename(temp, finalPath);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

const inFlight = new Map<string, Promise<unknown>>();

/**
 * Calls for one file inside this process share one piece of work (one qemu-img run instead of N); across
 * processes publishNoClobber decides. `joined` adapts the shared result for the callers that joined late.
 */
export async function singleFlight<T>(key: string, work: () => Promise<T>, joined: (result: T) => T): Promise<T> {
  const pending = inFlight.get(key) as Promise<T> | undefined;
  if (pending !== undefined) return joined(await pending);
  const started = work();
  inFlight.set(key, started);
  try {
    return await started;
  } finally {
    inFlight.delete(key);
  }
}
