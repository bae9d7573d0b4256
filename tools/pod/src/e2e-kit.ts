// Test support for the virt-pod end-to-end tests: runs the built CLI on examples/vmi-demo.yaml and finds whatever a
// run left behind (network namespaces, /etc/netns entries, its run-root, any process whose mounts still use it).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const guestDir = path.join(repo, '.cache/demo-guest');

export function buildDemoGuest(): void {
  execFileSync('bash', [path.join(repo, 'tools/demo-guest/build.sh'), guestDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** `node tools/pod/dist/cli.js run examples/vmi-demo.yaml` with the demo guest's disks, then `extra`. */
export function demoArgs(extra: string[], kernelBootDir = guestDir): string[] {
  return [
    path.join(repo, 'tools/pod/dist/cli.js'),
    'run',
    path.join(repo, 'examples/vmi-demo.yaml'),
    '--container-disk',
    `rootdisk=${guestDir}/containerdisk.img`,
    '--kernel-boot-dir',
    kernelBootDir,
    ...extra,
  ];
}

export interface PodRun {
  child: ChildProcess;
  output(): string;
  /** Resolves once the output matches (rejects when virt-pod exits first). */
  waitFor(pattern: RegExp): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Spawns virt-pod; `env` is added to this process's environment. virt-pod leads its own process group, as a
 * command typed in a terminal does, so `interruptLikeTerminal` can send Ctrl-C's SIGINT to that whole group.
 */
export function startPod(args: string[], env: NodeJS.ProcessEnv = {}): PodRun {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  const waiters: (() => void)[] = [];
  const onData = (d: Buffer) => {
    text += d.toString();
    waiters.forEach((w) => w());
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return {
    child,
    output: () => text,
    exited,
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => pattern.test(text) && resolve();
        waiters.push(check);
        check();
        void exited.then(() => reject(new Error(`virt-pod exited before ${String(pattern)}:\n${text}`)));
      }),
  };
}

export function runRootOf(output: string): string {
  const m = /run-root (\S+)/.exec(output);
  if (!m?.[1]) throw new Error(`no run-root in the output:\n${output}`);
  return m[1];
}

const ourNamespaces = () =>
  execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter((n) => /^vlt-(pod|node)-[0-9a-f]{6}$/.test(n));

export interface Snapshot {
  namespaces: Set<string>;
  /** /etc/netns entries already there (a run killed by SIGKILL elsewhere leaves its resolv.conf folder). */
  etcNetns: Set<string>;
}

const etcNetnsEntries = (): string[] =>
  fs.existsSync('/etc/netns') ? fs.readdirSync('/etc/netns').filter((n) => /^vlt-pod-[0-9a-f]{6}$/.test(n)) : [];

export function snapshot(): Snapshot {
  return { namespaces: new Set(ourNamespaces()), etcNetns: new Set(etcNetnsEntries()) };
}

/** Everything of one run still present: namespaces and /etc/netns entries made since `before` (those the run's
 * `output` names, when given), the run-root, and processes whose mount table still holds the run-root (the pod's
 * daemons, QEMU, the launcher). */
export function leftovers(before: Snapshot, runRoot: string | undefined, output?: string) {
  // With the run's output, only the namespaces it names as its own count: other pods may run beside it.
  const named = (n: string) => output?.includes(n) ?? true;
  const namespaces = ourNamespaces().filter((n) => !before.namespaces.has(n) && named(n));
  const etcNetns = etcNetnsEntries().filter((n) => !before.etcNetns.has(n) && named(n));
  const processes: string[] = [];
  if (runRoot) {
    for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      const read = (file: string) => {
        try {
          return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
        } catch {
          return ''; // gone meanwhile
        }
      };
      if (read('mountinfo').includes(runRoot)) processes.push(`${pid} ${read('cmdline').replace(/\0/g, ' ').trim()}`);
    }
  }
  return { namespaces, etcNetns, runRoot: runRoot && fs.existsSync(runRoot) ? [runRoot] : [], processes };
}

export const nothingLeft = { namespaces: [], etcNetns: [], runRoot: [], processes: [] };

/** What Ctrl-C does: SIGINT to every process of the foreground process group, not only to virt-pod. */
export function interruptLikeTerminal(run: PodRun): void {
  if (run.child.pid) process.kill(-run.child.pid, 'SIGINT');
}
