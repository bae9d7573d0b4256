// Cost of one JSON log line of @virt-launcher/shared's logger (issue 22: virt-dhcp writes one per new binding, on
// the DHCP path), against floors in the same run: the same object through a bare JSON.stringify and the same
// stderr write, with a fixed `pos` (a pino-like line that knows no caller). The line is the DHCP ACK's
// (`sent DHCPACK` with mac, xid, yiaddr, to). The measuring runs in a child whose stderr is a pipe the parent
// drains, as a pod's runtime drains the launcher's; a round waits (off the clock) whenever the pipe is full, so
// neither side is timed appending to Node's in-memory write queue. Then the parts alone, without a write: ours,
// the floor's JSON.stringify, the stack read for `pos`, the timestamp, and the write calls alone.
// Run: npx tsx tools/bench/suites/logger.ts   (needs `npm run build` in packages/shared first)
// Progress on stderr; the last stdout line is the result JSON (CONTRIBUTING.md, "Benchmarks").
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@virt-launcher/shared';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const ROUND_MS = Number(process.env.BENCH_MS ?? 300);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

type Line = () => void;
type Timed = Record<string, number[]>;

/** Microseconds per call of `line` over about `ms` of clock, the waits for a full pipe left out. */
async function microsPerLine(line: Line, ms: number): Promise<number> {
  let calls = 0;
  let spent = 0n;
  const budget = BigInt(Math.round(ms * 1e6));
  while (spent < budget) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 50; i++) line();
    spent += process.hrtime.bigint() - t0;
    calls += 50;
    while (process.stderr.writableLength > 0) await new Promise((r) => setImmediate(r));
  }
  return Number(spent) / 1e3 / calls;
}

/** Warms each line, then times them in rounds, rotating which goes first; every round's figure per name. */
async function rounds(lines: Record<string, Line>): Promise<Timed> {
  const names = Object.keys(lines);
  for (const name of names) await microsPerLine(lines[name]!, 200); // V8 optimises before the clock runs
  const out: Timed = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length]!;
      out[name]!.push(await microsPerLine(lines[name]!, ROUND_MS));
    }
  }
  return out;
}

let sink = 0; // lines built but not written feed this, so V8 cannot drop the work

let pipeFull = 0; // writeSync calls refused with EAGAIN (the pipe is non-blocking once Node opened stderr on it)

function writeToPipe(text: string): number {
  try {
    return writeSync(2, text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    pipeFull++;
    return 0;
  }
}

async function child(): Promise<void> {
  // tsx turns Node's source-map support on, which makes every stack read map its frames: virt-dhcp and the launcher
  // run built JavaScript without it, so the stack for `pos` is timed as they pay it.
  process.setSourceMapsEnabled(false);
  const fields = { mac: '02:00:00:12:34:56', xid: 2864434397, yiaddr: '10.0.2.2', to: '255.255.255.255' };
  const msg = 'sent DHCPACK';
  const toStderr = createLogger({ component: 'virt-dhcp' });
  const noWrite = createLogger({ component: 'virt-dhcp', write: (l) => (sink += l.length) });
  const floorLine = (): string =>
    JSON.stringify({
      component: 'virt-dhcp',
      level: 'info',
      msg,
      pos: 'handler.ts:58',
      timestamp: new Date().toISOString(),
      ...fields,
    });
  const sample = floorLine() + '\n';
  const stack = (): void => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 4;
    sink += new Error().stack?.length ?? 0;
    Error.stackTraceLimit = limit;
  };
  const whole = await rounds({
    ours: () => toStderr.info(msg, fields),
    floor: () => void process.stderr.write(floorLine() + '\n'),
  });
  const parts = await rounds({
    oursNoWrite: () => noWrite.info(msg, fields),
    floorNoWrite: () => void (sink += floorLine().length),
    stack,
    timestamp: () => void (sink += new Date().toISOString().length),
    streamWrite: () => void process.stderr.write(sample),
    writeSync: () => void (sink += writeToPipe(sample)),
  });
  process.stdout.write(
    JSON.stringify({ ...whole, ...parts, lineBytes: sample.length, pipeFull, sink: sink > 0 }) + '\n',
  );
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;

async function parent(): Promise<void> {
  process.stderr.write(`[logger bench] load before ${load()}\n`);
  const self = fileURLToPath(import.meta.url);
  const run = spawn(process.execPath, [...process.execArgv, self, 'child'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let lastChunk: Buffer | undefined; // kept, never parsed: the lines are the load; the last tells a failure
  run.stderr.on('data', (d: Buffer) => (lastChunk = d));
  let stdout = '';
  run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
  if (code !== 0) throw new Error(`the measuring child exited with ${code}: ${String(lastChunk).slice(-1500)}`);
  const timed = JSON.parse(stdout.trim().split('\n').at(-1)!) as Timed & { lineBytes: number; pipeFull: number };
  const m = (name: string): number => median(timed[name]!);
  for (const name of Object.keys(timed).filter((k) => Array.isArray(timed[k]))) {
    const all = timed[name]!;
    process.stderr.write(
      `[logger bench]   ${name.padEnd(14)} ${m(name).toFixed(2).padStart(7)} us  (rounds ${Math.min(...all).toFixed(2)}–${Math.max(...all).toFixed(2)})\n`,
    );
  }
  const note = `${timed.lineBytes} B line; writeSync refused ${timed.pipeFull} times (pipe full); median of ${ROUNDS} interleaved rounds x ${ROUND_MS} ms after warm-up; load average ${load()}`;
  const row = (name: string, ours: string, peer: string, peerName: string, goal: string) => ({
    name,
    ours: +m(ours).toFixed(3),
    peer: +m(peer).toFixed(3),
    unit: 'us',
    ratio: +(m(ours) / m(peer)).toFixed(3),
    goal,
    peerName,
    note,
  });
  const result = {
    suite: 'logger',
    results: [
      row(
        'one info line (DHCP ACK) to a stderr pipe',
        'ours',
        'floor',
        'floor: JSON.stringify of the same object, fixed pos, process.stderr.write',
        'report only',
      ),
      row(
        'one info line built, not written',
        'oursNoWrite',
        'floorNoWrite',
        'floor: JSON.stringify of the same object, fixed pos',
        'report only',
      ),
      row(
        `the write alone: process.stderr.write vs fs.writeSync(2) of a ${timed.lineBytes} B line`,
        'streamWrite',
        'writeSync',
        'fs.writeSync(2, line)',
        'report only',
      ),
    ],
  };
  process.stdout.write(JSON.stringify(result) + '\n');
}

if (process.argv[2] === 'child') await child();
else await parent();
