// Test helper: runs the built virt-launcher binary as a real process and collects its JSON log lines.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { foreignMountNamespaces, killAllIn, killPids } from '../daemons/probe-orphans.js';

export const cliPath = resolve(fileURLToPath(import.meta.url), '../../../dist/cli.js');

export interface LogLine {
  level: string;
  msg: string;
  pos: string;
  component: string;
  timestamp: string;
  [key: string]: unknown;
}

export class LauncherProcess {
  readonly lines: LogLine[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<number | null>;
  private waiters: Array<() => void> = [];

  constructor(
    readonly child: ChildProcess,
    /** Maps a path as the launcher sees it to the same file as the test sees it. */
    readonly hostPath: (path: string) => string,
  ) {
    let buf = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const text = buf.slice(0, i);
        buf = buf.slice(i + 1);
        this.stderr.push(text);
        try {
          this.lines.push(JSON.parse(text) as LogLine);
        } catch {
          // Not every line is ours (daemon output may pass through); keep it in stderr only.
        }
        this.waiters.forEach((w) => w());
      }
    });
    this.exited = new Promise((r) => child.on('exit', (code) => r(code)));
  }

  get readySocket(): string {
    return this.hostPath('/var/run/kubevirt/sockets/launcher-sock');
  }

  get notifySocket(): string {
    return this.hostPath('/var/run/kubevirt/domain-notify-pipe.sock');
  }

  /** Waits until a log line with this msg appears (or the process exits, which rejects). */
  waitForLog(msg: string | RegExp, timeoutMs = 30_000): Promise<LogLine> {
    const match = (l: LogLine) => (typeof msg === 'string' ? l.msg === msg : msg.test(l.msg));
    return new Promise((resolveP, reject) => {
      const check = () => {
        const hit = this.lines.find(match);
        if (hit) {
          cleanup();
          resolveP(hit);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for log "${String(msg)}"; stderr:\n${this.stderr.join('\n')}`));
      }, timeoutMs);
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`launcher exited (${code}) before "${String(msg)}"; stderr:\n${this.stderr.join('\n')}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        this.child.off('exit', onExit);
      };
      this.waiters.push(check);
      this.child.on('exit', onExit);
      check();
    });
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

export async function makeRunRoot(prefix = 'vlt-launcher-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeRunRoot(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Spawns `node dist/cli.js ARGS` (optionally through a wrapper such as private-root.sh exec). */
export function startLauncher(
  runRoot: string,
  args: string[],
  wrapper: string[] = [],
  env: NodeJS.ProcessEnv = {},
): LauncherProcess {
  const argv = [...wrapper, process.execPath, cliPath, '--run-root', runRoot, ...args];
  const child = spawn(argv[0] ?? 'node', argv.slice(1), {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  return new LauncherProcess(child, (p) => join(runRoot, p));
}

export const privateRootScript = resolve(
  fileURLToPath(import.meta.url),
  '../../../../../tools/sandbox/private-root.sh',
);

/** What the private root's /dev/kvm is (tools/sandbox/private-root.sh --kvm): the host's, none, or not KVM. */
export type KvmDevice = 'host' | 'none' | 'broken';

/**
 * Runs the launcher inside `private-root.sh exec ROOT --kvm KVM` with --run-root / (exactly as in a pod): it starts
 * its own libvirtd. Inside, /run and /var/run are ROOT/run, /var is ROOT/var, and /dev is private with /dev/kvm as
 * `kvm` says, so a test decides the hypervisor instead of inheriting whatever the host has.
 */
export function startLauncherInPrivateRoot(
  root: string,
  kvm: KvmDevice,
  args: string[],
  prefix: string[] = [],
): LauncherProcess {
  const argv = [
    ...prefix,
    privateRootScript,
    'exec',
    root,
    '--kvm',
    kvm,
    '--',
    process.execPath,
    cliPath,
    '--run-root',
    '/',
    ...args,
  ];
  const child = spawn(argv[0] ?? 'bash', argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  const hostPath = (p: string) => {
    const inRun = /^\/(?:var\/)?run\/(.*)$/.exec(p);
    if (inRun) return join(root, 'run', inRun[1] ?? '');
    if (p.startsWith('/var/')) return join(root, p);
    return p;
  };
  return new LauncherProcess(child, hostPath);
}

export async function isSocket(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isSocket(),
    () => false,
  );
}

/** Every descendant of `pid` (children first found through /proc/<n>/stat's ppid field). */
export async function descendants(pid: number): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(entry), ppid);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parents) {
      if (parent === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

/** Sends `signal` to the launcher itself (the node process under the private-root wrapper). */
export async function signalLauncherNode(proc: LauncherProcess, signal: NodeJS.Signals): Promise<void> {
  const pid = proc.child.pid;
  if (pid === undefined) return;
  for (const p of [pid, ...(await descendants(pid))]) {
    const cmd = await import('node:fs/promises').then((fs) =>
      fs.readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => ''),
    );
    if (cmd.includes(cliPath)) process.kill(p, signal);
  }
}

/**
 * Kills, by their PIDs, every process this test started under the wrapper (QEMU and daemons included), then every
 * process left in the private root's mount namespace (read here before the tree dies): the QEMU capability probes
 * libvirt daemonized (nobody's descendants), and a daemon spawned between the listing and the kill (virtlogd
 * follows "Marked as ready"; one outlived a fresh-clone run). A pod's PID namespace would end them; here nothing
 * else would.
 */
export async function killTree(proc: LauncherProcess): Promise<void> {
  const pid = proc.child.pid;
  if (pid === undefined) return;
  const below = await descendants(pid);
  const namespaces = await foreignMountNamespaces([pid, ...below]);
  killPids([...below.reverse(), pid]);
  await killAllIn(namespaces);
}

/** QEMU is daemonised by libvirtd (not our descendant): kill it by the PID files under the private root. */
export async function killGuests(root: string): Promise<void> {
  const { readdir, readFile } = await import('node:fs/promises');
  const dir = join(root, 'run/libvirt/qemu');
  const guests: number[] = [];
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    if (!f.endsWith('.pid')) continue;
    const pid = Number((await readFile(join(dir, f), 'utf8').catch(() => '')).trim());
    if (pid > 0) guests.push(pid);
  }
  killPids(guests);
}
