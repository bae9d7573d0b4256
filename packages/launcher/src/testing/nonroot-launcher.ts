// Test support: the launcher as a non-root pod runs it. KubeVirt renders the compute container as uid/gid 107 with
// every capability dropped but NET_BIND_SERVICE, no privilege escalation, and --run-as-nonroot. Here the private
// root (tools/sandbox/private-root.sh, entered as root to make its mounts) then drops to exactly that with setpriv
// before it runs the launcher; its /run (the pod's writable directories) is owned by 107 as the pod's volumes are.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LauncherProcess, cliPath, privateRootScript } from './launcher-process.js';
import type { KvmDevice } from './launcher-process.js';

export const POD_UID = 107;

/** The capability set a non-root launcher container keeps (KubeVirt drops the rest). */
const KEEP_CAPS = '-all,+net_bind_service';

/** Makes the private root's directories (as root) and hands its /run to the pod's user, recursively. */
export async function preparePodRoot(root: string): Promise<void> {
  execFileSync(privateRootScript, ['exec', root, '--kvm', 'none', '--', 'true']);
  await chownTree(join(root, 'run'), POD_UID, POD_UID);
}

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return;
  await chown(path, uid, gid);
  if (info.isDirectory()) for (const name of await readdir(path)) await chownTree(join(path, name), uid, gid);
}

/**
 * Runs `node dist/cli.js --run-root / --run-as-nonroot ARGS` inside the private root as uid/gid 107 with only
 * NET_BIND_SERVICE; /tmp is the root's own (--private-tmp) so a test can check that nothing was left there.
 */
export function startNonRootLauncher(root: string, kvm: KvmDevice, args: string[], netns?: string): LauncherProcess {
  const argv = [
    ...(netns ? ['ip', 'netns', 'exec', netns] : []),
    privateRootScript,
    'exec',
    root,
    '--kvm',
    kvm,
    '--private-tmp',
    '--',
    'setpriv',
    `--reuid=${POD_UID}`,
    `--regid=${POD_UID}`,
    '--clear-groups',
    `--inh-caps=${KEEP_CAPS}`,
    `--ambient-caps=${KEEP_CAPS}`,
    `--bounding-set=${KEEP_CAPS}`,
    '--no-new-privs',
    '--',
    process.execPath,
    cliPath,
    '--run-root',
    '/',
    '--run-as-nonroot',
    ...args,
  ];
  const child = spawn(argv[0] ?? 'bash', argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  // Inside the root /run and /var/run are ROOT/run, /var is ROOT/var.
  const hostPath = (p: string) => {
    const inRun = /^\/(?:var\/)?run\/(.*)$/.exec(p);
    if (inRun) return join(root, 'run', inRun[1] ?? '');
    if (p.startsWith('/var/') || p.startsWith('/tmp/')) return join(root, p);
    return p;
  };
  return new LauncherProcess(child, hostPath);
}

/**
 * A network namespace (`vlt-launcher-<random>`) holding what virt-handler leaves a non-root pod: tap0, owned by the
 * pod's user so its QEMU can open it (libvirt plugs it in with managed='no'). Remove it with removePodNetns.
 */
export function makePodNetns(): string {
  const ns = `vlt-launcher-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', ns]);
  execFileSync('ip', [
    '-n',
    ns,
    'tuntap',
    'add',
    'dev',
    'tap0',
    'mode',
    'tap',
    'user',
    `${POD_UID}`,
    'group',
    `${POD_UID}`,
  ]);
  execFileSync('ip', ['-n', ns, 'link', 'set', 'tap0', 'up']);
  return ns;
}

export function removePodNetns(ns: string): void {
  execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
}

export interface ProcCreds {
  pid: number;
  command: string;
  uid: number;
  gid: number;
  /** Effective capabilities, as the hex mask of /proc/PID/status. */
  capEff: bigint;
}

/** The real uid, gid and effective capabilities of a process. */
export async function procCreds(pid: number): Promise<ProcCreds | undefined> {
  const [status, cmdline] = await Promise.all([
    readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''),
    readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
  ]);
  if (!status) return undefined;
  const field = (name: string) => new RegExp(`^${name}:\\s+(\\S+)`, 'm').exec(status)?.[1] ?? '';
  return {
    pid,
    command: cmdline.split('\0').filter(Boolean).join(' '),
    uid: Number(field('Uid')),
    gid: Number(field('Gid')),
    capEff: BigInt(`0x${field('CapEff') || '0'}`),
  };
}

/** QEMU of a session-mode daemon: its pid file is under $XDG_RUNTIME_DIR/libvirt/qemu/run. */
export async function nonRootQemuPid(root: string, domain: string): Promise<number | undefined> {
  const text = await readFile(join(root, 'run/libvirt/qemu/run', `${domain}.pid`), 'utf8').catch(() => '');
  const pid = Number(text.trim());
  return pid > 0 ? pid : undefined;
}

/** Kills a QEMU the test left behind (session mode keeps its pid file in qemu/run). */
export async function killNonRootGuests(root: string): Promise<void> {
  const dir = join(root, 'run/libvirt/qemu/run');
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    if (!f.endsWith('.pid')) continue;
    const pid = Number((await readFile(join(dir, f), 'utf8').catch(() => '')).trim());
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

export interface Entry {
  path: string;
  uid: number;
  mode: string;
}

/** Every entry under `dir` (relative paths, sorted), its owner and mode; `skip` prunes relative paths. */
export async function listTree(dir: string, skip: (rel: string) => boolean = () => false): Promise<Entry[]> {
  const out: Entry[] = [];
  const walk = async (rel: string) => {
    for (const name of await readdir(join(dir, rel)).catch(() => [] as string[])) {
      const child = rel ? `${rel}/${name}` : name;
      if (skip(child)) continue;
      const info = await lstat(join(dir, child)).catch(() => undefined);
      if (!info) continue;
      out.push({ path: child, uid: info.uid, mode: (info.mode & 0o7777).toString(8) });
      if (info.isDirectory()) await walk(child);
    }
  };
  await walk('');
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
