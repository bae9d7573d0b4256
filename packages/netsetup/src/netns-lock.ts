// One run at a time per network namespace. Two runs that both read "nothing there yet" would both create the
// bridge; the loser's rollback then deleted what the winner had just made. The lock is a kernel flock on
// /run/vlt-netsetup/net-<inode>.lock (the nsfs inode names the namespace itself, so two names bound to one
// namespace share a lock), held by a `flock` child (running `cat`) for as long as its stdin pipe from us is
// open. Node has no flock(2); with the child holding it, the lock is crash-safe: if this process dies, even by
// SIGKILL, the pipe closes, the child exits and the kernel drops the lock. There is no lock file content to go
// stale.
import { spawn } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { NetnsLockError } from './errors.js';

export const DEFAULT_LOCK_DIR = '/run/vlt-netsetup';
const NETNS_DIR = '/run/netns';

export interface NetnsLockOptions {
  /** Where the lock files live; VIRT_NETSETUP_LOCK_DIR overrides the default. */
  dir?: string;
  /** How long to wait for another run to finish. */
  timeoutSeconds?: number;
}

/** The lock file of a namespace `ip netns` knows by `name` (checked by the caller). */
export async function netnsLockPath(name: string, dir = lockDir()): Promise<string> {
  const { ino } = await stat(join(NETNS_DIR, name));
  return join(dir, `net-${ino}.lock`);
}

function lockDir(): string {
  return process.env.VIRT_NETSETUP_LOCK_DIR || DEFAULT_LOCK_DIR;
}

/** Takes the namespace's lock; resolves to the release function once held. */
export async function lockNetns(name: string, options: NetnsLockOptions = {}): Promise<() => Promise<void>> {
  const dir = options.dir ?? lockDir();
  const timeout = options.timeoutSeconds ?? 60;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = await netnsLockPath(name, dir);
  // flock runs `cat` once it holds the lock; cat echoes the byte we send, so its first output says "held"
  // without a shell in between (a shell cost a third exec on every run). cat then waits for our end of the
  // pipe to close.
  const holder = spawn('flock', ['-x', '-w', String(timeout), path, 'cat'], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: a Ctrl-C meant for the caller's terminal must not drop the lock mid-run.
    detached: true,
  });
  const exited = new Promise<number | null>((resolve) => holder.once('close', (code) => resolve(code)));
  let stderr = '';
  holder.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // A holder that could not start, or gave up, closes the pipe: that is reported through its exit status.
  holder.stdin.on('error', () => undefined);
  holder.stdin.write('\n');
  const held = await new Promise<boolean>((resolve) => {
    holder.stdout.once('data', () => resolve(true));
    holder.once('error', (err) => {
      stderr ||= err.message;
      resolve(false);
    });
    void exited.then(() => resolve(false));
  });
  if (!held) {
    const code = await exited;
    throw new NetnsLockError(
      name,
      path,
      code === 1 ? `not free within ${timeout} s` : stderr.trim() || `flock ${code}`,
    );
  }
  return async () => {
    holder.stdin.end();
    await exited;
  };
}

/** Runs `fn` while holding the namespace's lock. */
export async function withNetnsLock<T>(name: string, fn: () => Promise<T>, options?: NetnsLockOptions): Promise<T> {
  const release = await lockNetns(name, options);
  try {
    return await fn();
  } finally {
    await release();
  }
}
