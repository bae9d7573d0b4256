// Runs the image's own launcher from an unpacked image as a non-root pod would: uid/gid 107 with NET_BIND_SERVICE
// only, no privilege escalation, `--run-as-nonroot`, the image's environment (its XDG_* variables), and the pod's
// volumes (the root's /run: /var/run is a link to it) owned by 107. A private mount namespace lends the root the
// host's /proc, /dev and /sys; they vanish with it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const POD_UID = 107;
const KEEP_CAPS = '-all,+net_bind_service';

/** The emptyDir volumes of KubeVirt's launcher pod, under the image's /run. */
const POD_VOLUMES = ['kubevirt', 'kubevirt/sockets', 'kubevirt-private', 'kubevirt-ephemeral-disks', 'libvirt'];

export interface ImageLauncher {
  child: ChildProcess;
  /** Every line the launcher wrote (its JSON log is on stderr). */
  lines: string[];
  /** The launcher's socket as seen from the host. */
  readySocket: string;
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  exited: Promise<number | null>;
}

function chownTree(dir: string): void {
  fs.chownSync(dir, POD_UID, POD_UID);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p);
    else if (!entry.isSymbolicLink()) fs.chownSync(p, POD_UID, POD_UID);
  }
}

export function startImageLauncher(rootfs: string, imageEnv: string[], args: string[]): ImageLauncher {
  for (const volume of POD_VOLUMES) fs.mkdirSync(path.join(rootfs, 'run', volume), { recursive: true });
  chownTree(path.join(rootfs, 'run'));
  const env: NodeJS.ProcessEnv = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
  for (const entry of imageEnv) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  const script = [
    'r=$0',
    'for fs in proc dev sys; do mount --rbind "/$fs" "$r/$fs"; done',
    'exec chroot "$r" /usr/bin/setpriv "$@"',
  ].join('\n');
  const child = spawn(
    'unshare',
    [
      '-m',
      '--propagation',
      'private',
      '--',
      'sh',
      '-c',
      script,
      rootfs,
      `--reuid=${POD_UID}`,
      `--regid=${POD_UID}`,
      '--clear-groups',
      `--inh-caps=${KEEP_CAPS}`,
      `--ambient-caps=${KEEP_CAPS}`,
      `--bounding-set=${KEEP_CAPS}`,
      '--no-new-privs',
      '--',
      '/usr/bin/virt-launcher',
      '--run-as-nonroot',
      ...args,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let pending = '';
  const onData = (d: Buffer) => {
    pending += d.toString();
    let i: number;
    while ((i = pending.indexOf('\n')) >= 0) {
      lines.push(pending.slice(0, i));
      pending = pending.slice(i + 1);
    }
    waiters.forEach((w) => w());
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitForLine = (pattern: RegExp, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const hit = lines.find((l) => pattern.test(l));
        if (hit === undefined) return;
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(check), 1);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join('\n')}`));
      }, timeoutMs);
      void exited.then((code) => {
        if (!lines.some((l) => pattern.test(l))) {
          clearTimeout(timer);
          reject(new Error(`the launcher exited (${code}) before ${pattern}:\n${lines.join('\n')}`));
        }
      });
      waiters.push(check);
      check();
    });
  return {
    child,
    lines,
    readySocket: path.join(rootfs, 'run/kubevirt/sockets/launcher-sock'),
    waitForLine,
    exited,
  };
}
