// Runs a command as root inside the unpacked image, as a privileged container of it: a private mount namespace lends
// the root the host's /proc and /sys, a tmpfs /dev with only the character devices a shell and libvirt need (never
// the host's /dev itself: a privileged script may make or chmod device nodes there), and a tmpfs /run. All of it
// vanishes with the namespace; what the command writes elsewhere stays in the unpacked root.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];
const CONTAINER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** `pid` and the processes below it (children before grandchildren), each with its argv and kernel name (comm). */
export function processTree(pid: number): Array<{ pid: number; argv: string[]; comm: string }> {
  const parentOf = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited since the listing
    }
    parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    const parent = found[i];
    for (const [child, ppid] of parentOf) if (ppid === parent) found.push(child);
  }
  return found.flatMap((p) => {
    try {
      const argv = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean);
      return [{ pid: p, argv, comm: fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() }];
    } catch {
      return []; // exited meanwhile
    }
  });
}

/** Runs `command` in the image as uid 0 with only `env` (and the container default PATH); rejects on failure. */
export async function runAsRootInImage(
  rootfs: string,
  command: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  const script = [
    'r=$0',
    'mount --rbind /proc "$r/proc" && mount --rbind /sys "$r/sys"',
    'mount -t tmpfs -o mode=0755 vlt-image-dev "$r/dev" && mount -t tmpfs -o mode=0755 vlt-image-run "$r/run"',
    `for d in ${DEVICES.join(' ')}; do touch "$r/dev/$d" && mount --bind "/dev/$d" "$r/dev/$d"; done`,
    'exec chroot "$r" "$@"',
  ].join('\n');
  const vars = Object.entries({ PATH: CONTAINER_PATH, ...env }).map(([k, v]) => `${k}=${v}`);
  const argv = ['-m', '--propagation', 'private', '--', 'sh', '-c', script, rootfs, '/usr/bin/env', '-i', ...vars];
  return run('unshare', [...argv, ...command], { timeout: 120_000 });
}
