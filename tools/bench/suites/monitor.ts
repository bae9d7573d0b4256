// Benchmark of @virt-launcher/monitor (run: npx tsx tools/bench/suites/monitor.ts).
// 1. Steady-state RSS of the monitor with a sleeping COMMAND, next to tini and an empty node.
// 2. Time from N orphans turning into zombies (all at once) until none is left, monitor vs tini,
//    both as PID 1 of a fresh pid namespace. The clock runs inside COMMAND (python3), so the
//    reapers' start-up and exit paths are not part of the number. Also the CPU time PID 1 spent
//    meanwhile, the most zombies seen waiting at once, and (for the monitor) its log lines.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchResult as Result } from '../src/suite-result.js';

// The bin execs the native PID 1 (packages/monitor/native), keeping its pid: the process measured is the monitor.
const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../../packages/monitor/bin/virt-launcher-monitor');
const ORPHANS = [50, 200, 2000];
const ROUNDS = 5;
// A 2,000-orphan burst takes seconds to set up on a busy machine: fewer rounds of it.
const ROUNDS_LARGE = 3;
const MiB = 1024;

const progress = (msg: string): void => void process.stderr.write(`[monitor] ${msg}\n`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number, digits = 2): number => Number(n.toFixed(digits));

function statusKb(pid: number, key: string): number {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN);
}

/** Starts a long-lived process, lets it settle, samples VmRSS and RssAnon (KiB), kills it. */
async function sampleRss(cmd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ rss: number; anon: number }> {
  const rss: number[] = [];
  const anon: number[] = [];
  for (let i = 0; i < 3; i++) {
    const child = spawn(cmd, args, { stdio: 'ignore', env: env ?? process.env });
    await sleep(2000);
    rss.push(statusKb(child.pid as number, 'VmRSS'));
    anon.push(statusKb(child.pid as number, 'RssAnon'));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  return { rss: median(rss), anon: median(anon) };
}

// A middle shell leaves N subshells blocked on a pipe and exits, so they are orphans of PID 1;
// closing the write end lets all of them exit at once. Prints the ms until no process but PID 1
// and COMMAND is left, PID 1's CPU ms meanwhile, and the most zombies one /proc pass saw (a pass
// over a few thousand entries takes milliseconds, so this is a sample, not an exact peak).
const ORPHANS_PY = String.raw`
import os, sys, time
n = int(sys.argv[1]); out = sys.argv[2]
r, w = os.pipe()
mid = os.fork()
if mid == 0:
    os.dup2(r, 9); os.close(r); os.close(w)
    # Subshells of a small shell: cheap to create and to tear down. The explicit redirection
    # matters: a background list's stdin would be /dev/null otherwise.
    os.execv('/bin/sh', ['sh', '-c', 'i=0; while [ $i -lt %d ]; do (read x; exit 0) <&9 & i=$((i+1)); done' % n])
os.close(r)
os.waitpid(mid, 0)
me = os.getpid()
def census():
    zombies, others = 0, 0
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) in (1, me): continue
        others += 1
        try:
            with open('/proc/%s/stat' % name) as f: s = f.read()
        except OSError: continue
        if s[s.rindex(')') + 2] == 'Z': zombies += 1
    return zombies, others
def cpu_ms():
    with open('/proc/1/stat') as f: s = f.read()
    fields = s[s.rindex(')') + 2:].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf('SC_CLK_TCK')
c0 = cpu_ms()
t0 = time.perf_counter()
os.close(w)
peak = 0
while True:
    zombies, others = census()
    peak = max(peak, zombies)
    if others == 0: break
    time.sleep(0.0005)
open(out, 'w').write('%.3f %.1f %d' % ((time.perf_counter() - t0) * 1000, cpu_ms() - c0, peak))
`;

interface ReapRun {
  wall: number;
  cpu: number;
  peak: number;
  lines: number;
}

/** One burst of n orphans under `reaper` as PID 1 (times in ms). */
function reapRun(reaper: string[], n: number, dir: string, env: NodeJS.ProcessEnv): ReapRun {
  const out = join(dir, `reap-${n}.txt`);
  const res = spawnSync(
    'unshare',
    ['--pid', '--fork', '--mount-proc', ...reaper, 'python3', join(dir, 'orphans.py'), String(n), out],
    { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' },
  );
  if (res.status !== 0) throw new Error(`${reaper[0]} run failed: ${res.status}\n${res.stdout}\n${res.stderr}`);
  const [wall, cpu, peak] = readFileSync(out, 'utf8').split(' ').map(Number);
  const lines = res.stdout.split('\n').filter((line) => line.startsWith('{')).length;
  return { wall: wall ?? NaN, cpu: cpu ?? NaN, peak: peak ?? NaN, lines };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vlt-monitor-bench-'));
  // Not-envoy readiness endpoint: spares each monitor run KubeVirt's ~7.8 s istio retry budget.
  const server = createServer((_q, res) => res.writeHead(404).end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const env = { ...process.env, VIRT_LAUNCHER_MONITOR_ISTIO_READY_URL: `http://127.0.0.1:${port}/` };
  const results: Result[] = [];
  try {
    writeFileSync(join(dir, 'orphans.py'), ORPHANS_PY);
    progress('steady-state RSS: monitor, tini, empty node');
    const ours = await sampleRss(CLI, ['--', 'sleep', '600'], env);
    const tini = await sampleRss('tini', ['-s', '--', 'sleep', '600']);
    const floor = await sampleRss('node', ['-e', 'setTimeout(() => {}, 600000)']);
    progress(`monitor ${ours.rss} KiB (anon ${ours.anon}), tini ${tini.rss} KiB, empty node ${floor.rss} KiB`);
    const mib = (kb: number): number => round(kb / MiB);
    results.push(
      {
        name: 'RSS, sleeping COMMAND, vs tini',
        ours: mib(ours.rss),
        peer: mib(tini.rss),
        unit: 'MiB',
        ratio: round(ours.rss / tini.rss),
        goal: '<= 25 MiB (KubeVirt budget for its Go monitor)',
      },
      {
        name: 'RSS vs empty node -e (floor)',
        ours: mib(ours.rss),
        peer: mib(floor.rss),
        unit: 'MiB',
        ratio: round(ours.rss / floor.rss),
        goal: '<= floor + 8 MiB',
      },
      {
        name: 'anonymous RSS vs empty node -e',
        ours: mib(ours.anon),
        peer: mib(floor.anon),
        unit: 'MiB',
        ratio: round(ours.anon / floor.anon),
        goal: '<= floor + 4 MiB',
      },
    );
    for (const n of ORPHANS) {
      const ours: ReapRun[] = [];
      const peer: ReapRun[] = [];
      for (let i = 0; i < (n >= 1000 ? ROUNDS_LARGE : ROUNDS); i++) {
        ours.push(reapRun([CLI, '--'], n, dir, env));
        peer.push(reapRun(['tini', '--'], n, dir, env));
      }
      const show = (xs: ReapRun[]): string => xs.map((x) => `${x.wall}/${x.cpu}/${x.peak}`).join(' ');
      progress(`reap ${n} (wall ms/cpu ms/peak zombies): monitor ${show(ours)}; tini ${show(peer)}`);
      const wall = [median(ours.map((x) => x.wall)), median(peer.map((x) => x.wall))] as const;
      const cpu = [median(ours.map((x) => x.cpu)), median(peer.map((x) => x.cpu))] as const;
      results.push({
        name: `reap ${n} orphans as PID 1, wall time, vs tini`,
        ours: round(wall[0]),
        peer: round(wall[1]),
        unit: 'ms',
        ratio: round(wall[0] / wall[1]),
        goal: '<= 2x tini',
      });
      // CPU is counted in clock ticks (10 ms): tini often spends 0 ticks, so the ratio uses 1 tick as its floor.
      results.push({
        name: `reap ${n} orphans, reaper CPU time, vs tini`,
        ours: round(cpu[0]),
        peer: round(cpu[1]),
        unit: 'ms',
        ratio: round(cpu[0] / Math.max(cpu[1], 10)),
        goal: '<= 100 ms',
      });
      if (n < 1000) continue;
      const peak = [median(ours.map((x) => x.peak)), median(peer.map((x) => x.peak))] as const;
      results.push({
        name: `reap ${n} orphans, most zombies waiting at once, vs tini`,
        ours: peak[0],
        peer: peak[1],
        unit: 'zombies',
        ratio: round(peak[0] / Math.max(peak[1], 1)),
        goal: '<= 4x tini',
      });
      // Against one line per orphan (what the monitor wrote before its reap log was rate-limited).
      const lines = median(ours.map((x) => x.lines));
      results.push({
        name: `reap ${n} orphans, monitor log lines, vs one per orphan`,
        ours: lines,
        peer: n,
        unit: 'lines',
        ratio: round(lines / n, 3),
        goal: '<= 0.1',
      });
    }
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify({ suite: 'monitor', results }) + '\n');
}

await main();
