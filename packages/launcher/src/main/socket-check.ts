// Is someone still serving this Unix socket? A restarted launcher used to delete the socket of a daemon (or
// cmd server) that was still running on the same run root, then failed for 30 s against a daemon it could no
// longer reach. A socket is only stale when nothing accepts on it; a live one means another launcher owns
// this run root, and the right answer is to stop at once and say so.
import { connect } from 'node:net';
import { readFile, readlink } from 'node:fs/promises';

/** Another process serves a socket this launcher would have to replace. */
export class SocketInUseError extends Error {
  constructor(
    readonly socketPath: string,
    readonly owner: string,
  ) {
    super(`${socketPath} is served by a running ${owner}: another virt-launcher uses this run root; refusing to start`);
    this.name = 'SocketInUseError';
  }
}

/** True when a connect succeeds (or hangs: a full backlog is a live listener too). */
export function socketAnswers(path: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(path);
    const done = (alive: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(true), timeoutMs);
    sock.once('connect', () => done(true));
    // ENOENT: no file; ECONNREFUSED: a file nobody listens on (stale); anything else: not a socket we could use.
    sock.once('error', () => done(false));
  });
}

/**
 * The PID in a daemon's pid file when that process is alive, is `name` and sees the same files as we do
 * (same mount namespace): a recycled PID, or another pod's daemon, is not an owner of this run root.
 */
export async function livePidFromFile(pidFile: string, name: string): Promise<number | undefined> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
  if (comm !== name) return undefined;
  const [theirs, ours] = await Promise.all([
    readlink(`/proc/${pid}/ns/mnt`).catch(() => ''),
    readlink('/proc/self/ns/mnt').catch(() => ''),
  ]);
  return theirs !== '' && theirs === ours ? pid : undefined;
}

/** Throws SocketInUseError when `path` is live; removes nothing. */
export async function refuseLiveSocket(path: string, owner: string): Promise<void> {
  if (await socketAnswers(path)) throw new SocketInUseError(path, owner);
}
