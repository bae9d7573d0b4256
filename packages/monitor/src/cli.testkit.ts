// Test harness: runs the BUILT monitor through its bin (bin/virt-launcher-monitor, which execs the native
// executable build/virt-launcher-monitor, keeping its pid) either directly (non-PID-1 subreaper) or under `unshare --pid --fork --mount-proc`
// (PID 1 of a fresh pid namespace), and collects its JSON log lines.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync, copyFileSync, chmodSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'virt-launcher-monitor');

export interface LogLine {
  component: string;
  level: string;
  msg: string;
  pos: string;
  timestamp: string;
}

export interface RunHandle {
  /** The process the test spawned: the monitor itself, or unshare in PID-1 mode. */
  proc: ChildProcess;
  done: Promise<RunResult>;
  /** Host pid of the monitor (the unshare's child in PID-1 mode). */
  monitorPid(): Promise<number>;
  /** The JSON log lines written so far (while the run goes on). */
  logsSoFar(): LogLine[];
  /** SIGKILLs the run if it is still going (for afterEach: a failed assertion must not leak it). */
  kill(): void;
}

const running = new Set<() => void>();

/** Kills every run started by runCli that has not ended. */
export function killRunning(): void {
  for (const kill of [...running]) kill();
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  logs: LogLine[];
  stdout: string;
  stderr: string;
  /** True when the guard had to kill the run: the monitor did not exit on its own. */
  timedOut: boolean;
}

export interface RunOptions {
  pid1: boolean;
  monitorArgs?: string[];
  command: string[];
  env?: NodeJS.ProcessEnv;
  /** The run is SIGKILLed after this long and reported as timedOut. */
  guardMs?: number;
  /** PID-1 mode only: also a new network namespace (loopback up), so ports can be checked alone. */
  privateNet?: boolean;
  /** PID-1 mode only: the monitor's stdout goes to this path (a FIFO the test controls). */
  stdoutPath?: string;
}

export function canUnsharePid(): boolean {
  return spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;
}

export function parseLogs(stdout: string): LogLine[] {
  // The last piece is a line still being written (or empty): only complete lines are parsed.
  return stdout
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Host pids whose parent is `ppid`. */
export function childrenOf(ppid: number): number[] {
  try {
    return readFileSync(`/proc/${ppid}/task/${ppid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export function runCli(options: RunOptions): RunHandle {
  const argv = [...(options.monitorArgs ?? []), '--', ...options.command];
  const env = { ...(options.env ?? process.env), VLT_MONITOR_STDOUT: options.stdoutPath ?? '' };
  // The shell execs the monitor, so the monitor keeps PID 1 of the namespace.
  const shell = [
    options.privateNet ? 'ip link set lo up &&' : '',
    options.stdoutPath ? 'exec "$@" > "$VLT_MONITOR_STDOUT"' : 'exec "$@"',
  ].join(' ');
  const inside = options.privateNet || options.stdoutPath ? ['sh', '-c', shell, 'sh', CLI] : [CLI];
  const proc = options.pid1
    ? spawn(
        'unshare',
        ['--pid', '--fork', '--mount-proc', ...(options.privateNet ? ['--net'] : []), ...inside, ...argv],
        {
          env,
        },
      )
    : spawn(CLI, argv, { env });
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  let timedOut = false;
  const kill = (): void => {
    // In PID-1 mode killing unshare leaves the namespace's init running: kill that first, while
    // it is still unshare's child and can be found.
    for (const pid of childrenOf(proc.pid ?? 0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    proc.kill('SIGKILL');
  };
  running.add(kill);
  const guard = setTimeout(() => {
    timedOut = true;
    kill();
  }, options.guardMs ?? 30_000);
  const done = new Promise<RunResult>((resolve) => {
    proc.on('close', (code, signal) => {
      running.delete(kill);
      clearTimeout(guard);
      resolve({ code, signal, logs: parseLogs(stdout), stdout, stderr, timedOut });
    });
  });
  const monitorPid = async (): Promise<number> => {
    if (!options.pid1) return proc.pid as number;
    return waitFor(() => childrenOf(proc.pid as number)[0], 'the monitor under unshare');
  };
  return { proc, done, monitorPid, logsSoFar: () => parseLogs(stdout), kill };
}

export interface Sandbox {
  dir: string;
  path(name: string): string;
  read(name: string): string;
  exists(name: string): boolean;
  /** Copies a binary under a new name so that /proc/PID/comm carries that name. */
  copyAs(source: string, name: string): string;
  remove(): void;
}

export function makeSandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), 'vlt-monitor-'));
  return {
    dir,
    path: (name) => join(dir, name),
    read: (name) => readFileSync(join(dir, name), 'utf8'),
    exists: (name) => existsSync(join(dir, name)),
    copyAs: (source, name) => {
      const target = join(dir, name);
      copyFileSync(source, target);
      chmodSync(target, 0o755);
      return target;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A stand-in for the istio-proxy readiness endpoint that is not envoy: without it every run
 * would spend KubeVirt's ~7.8 s of connection-refused retries on localhost:15021.
 */
export async function startNoIstio(): Promise<{ env: NodeJS.ProcessEnv; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    env: { ...process.env, VIRT_LAUNCHER_MONITOR_ISTIO_READY_URL: `http://127.0.0.1:${port}/healthz/ready` },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Shell COMMAND that makes six grandchildren orphans while it is still alive (each is started
 * by a subshell that exits at once), records who their parent became, waits (bounded) until each
 * has left /proc, counts zombies left on the reaper, and exits 0. Grandchild i exits with code i.
 */
export const ORPHANS_SCRIPT = String.raw`
report="$1"
: > "$report.pids"
for i in 1 2 3 4 5 6; do
  ( sh -c "sleep 1; exit $i" & echo $! >> "$report.pids" )
done
reaper=$PPID
{
  echo "reaper $reaper"
  for pid in $(cat "$report.pids"); do
    echo "parent $pid $(cut -d' ' -f4 /proc/$pid/stat 2>/dev/null || echo gone)"
  done
  for pid in $(cat "$report.pids"); do
    n=0
    while [ -e /proc/$pid ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n+1)); done
    if [ -e /proc/$pid ]; then echo "left $pid $(cut -d' ' -f3 /proc/$pid/stat)"; else echo "gone $pid"; fi
  done
  echo "zombies $(cat /proc/[0-9]*/stat 2>/dev/null | awk -v r=$reaper '$3=="Z" && $4==r' | wc -l)"
} > "$report.tmp"
mv "$report.tmp" "$report"
`;

export interface OrphanReport {
  reaper: number;
  parents: Map<number, string>;
  gone: number[];
  left: string[];
  zombies: number;
}

export function parseOrphanReport(text: string): OrphanReport {
  const report: OrphanReport = { reaper: -1, parents: new Map(), gone: [], left: [], zombies: -1 };
  for (const line of text.trim().split('\n')) {
    const [kind, a, b] = line.split(' ');
    if (kind === 'reaper') report.reaper = Number(a);
    if (kind === 'parent') report.parents.set(Number(a), String(b));
    if (kind === 'gone') report.gone.push(Number(a));
    if (kind === 'left') report.left.push(`${a} state ${b}`);
    if (kind === 'zombies') report.zombies = Number(a);
  }
  return report;
}

/** Orphans the monitor reports as reaped: one line each, plus the counts of its summary lines. */
export function reapedCount(logs: LogLine[]): { lines: number; summarized: number; total: number } {
  const lines = logs.filter((l) => /^Reaped pid \d+ with status/.test(l.msg)).length;
  const summarized = logs
    .map((l) => Number(/^Reaped (\d+) more orphans, not logged one by one/.exec(l.msg)?.[1] ?? 0))
    .reduce((a, b) => a + b, 0);
  return { lines, summarized, total: lines + summarized };
}

/** TCP ports in LISTEN state in the network namespace of `pid` (IPv4 and IPv6). */
export function listeningPorts(pid: number): number[] {
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local) ports.push(parseInt(local.split(':')[1] ?? '', 16));
    }
  }
  return ports;
}

/** True once `pid` has a handler for `signal` (its bit in SigCgt of /proc/PID/status). */
export function catchesSignal(pid: number, signal: number): boolean {
  try {
    const match = /^SigCgt:\s+([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match !== null && (BigInt(`0x${match[1]}`) & (1n << BigInt(signal - 1))) !== 0n;
  } catch {
    return false;
  }
}
