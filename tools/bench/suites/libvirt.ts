// Benchmark of @virt-launcher/libvirt (run: npx tsx tools/bench/suites/libvirt.ts).
// define + lookup + undefine cycles per second against one private libvirtd, ours next to virsh doing the
// same against the same daemon in the same run: one `virsh -c URI` process fed every command on stdin (the
// fair peer: one connection, like ours), and one virsh process per command (what a shell script does).
// Also the binding's memory under churn (moved here from the stress test: a bound on RSS is a measurement, not a
// pass/fail fact): RSS growth over many cycles on test:///default, next to the same cycles with a deliberate leak.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { setImmediate as tick } from 'node:timers/promises';

import { connect } from '@virt-launcher/libvirt';
import type { Connection } from '@virt-launcher/libvirt';
import type { BenchResult as Result } from '../src/suite-result.js';

const SANDBOX = resolve(dirname(fileURLToPath(import.meta.url)), '../../sandbox/private-root.sh');
const CYCLES = 300;
const PER_PROCESS_CYCLES = 20;
const LANES = 16;
const ROUNDS = 3;

const progress = (msg: string): void => void process.stderr.write(`[libvirt] ${msg}\n`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

const domainXml = (name: string): string =>
  `<domain type='qemu'><name>${name}</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>` +
  `<os><type arch='x86_64' machine='q35'>hvm</type></os></domain>`;

async function oursCycles(conn: Connection, prefix: string, count: number, lanes: number): Promise<number> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const name = `${prefix}-${next++}`;
      await conn.defineXML(domainXml(name));
      const dom = await conn.lookupDomainByName(name);
      await dom.undefine();
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: lanes }, lane));
  return count / ((performance.now() - t0) / 1000);
}

function writeXmls(dir: string, prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const file = join(dir, `${prefix}-${i}.xml`);
    writeFileSync(file, domainXml(`${prefix}-${i}`));
    return file;
  });
}

function virshBatch(uri: string, dir: string, prefix: string, count: number): number {
  const files = writeXmls(dir, prefix, count);
  const script = files.map((f, i) => `define ${f}\ndomuuid ${prefix}-${i}\nundefine ${prefix}-${i}\n`).join('');
  const t0 = performance.now();
  const r = spawnSync('virsh', ['-q', '-c', uri], { input: script, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0 || /error/i.test(r.stderr)) throw new Error(`virsh batch failed: ${r.stderr}`);
  return count / seconds;
}

function virshPerProcess(uri: string, dir: string, prefix: string, count: number): number {
  const files = writeXmls(dir, prefix, count);
  const run = (...args: string[]): void => {
    const r = spawnSync('virsh', ['-q', '-c', uri, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`virsh ${args.join(' ')} failed: ${r.stderr}`);
  };
  const t0 = performance.now();
  files.forEach((f, i) => {
    run('define', f);
    run('domuuid', `${prefix}-${i}`);
    run('undefine', `${prefix}-${i}`);
  });
  return count / ((performance.now() - t0) / 1000);
}

const RSS_WARM = 5_000;
const RSS_CYCLES = 10_000;
const RSS_LANES = 32;
const MiB = 1024 * 1024;

/**
 * Runs in a process of its own (node --expose-gc, MALLOC_ARENA_MAX=1 so glibc's per-thread arenas do not blur
 * RSS): warm-up cycles, then measured ones; prints the RSS growth of the measured ones. With `leak`, each cycle's
 * two domain handles are kept alive: the growth a real leak of the binding would show.
 */
async function rssChild(leak: boolean): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the RSS child needs --expose-gc');
  const settledRss = async (): Promise<number> => {
    for (let i = 0; i < 4; i++) {
      gc();
      await tick();
    }
    return process.memoryUsage().rss;
  };
  const conn = await connect('test:///default');
  const kept: unknown[] = [];
  const run = async (prefix: string, count: number): Promise<void> => {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < count) {
        const name = `${prefix}-${next++}`;
        const defined = await conn.defineXML(
          `<domain type='test'><name>${name}</name><memory unit='KiB'>65536</memory><os><type>hvm</type></os></domain>`,
        );
        const found = await conn.lookupDomainByName(name);
        await found.undefine();
        if (leak) kept.push(defined, found);
      }
    };
    await Promise.all(Array.from({ length: RSS_LANES }, lane));
  };
  await run('warm', RSS_WARM);
  const before = await settledRss();
  await run('measured', RSS_CYCLES);
  const after = await settledRss();
  await conn.close();
  console.log(JSON.stringify({ growth: after - before, kept: kept.length }));
}

function rssGrowthMiB(leak: boolean): number {
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), 'rss-child', leak ? 'leak' : 'free'],
    { encoding: 'utf8', env: { ...process.env, MALLOC_ARENA_MAX: '1' } },
  );
  if (r.status !== 0) throw new Error(`RSS child failed: ${r.stderr}`);
  const { growth } = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { growth: number };
  return growth / MiB;
}

function memoryResult(): Result {
  progress(
    `RSS: ${RSS_CYCLES} cycles after ${RSS_WARM} warm-up, ${RSS_LANES} lanes, without and with a deliberate leak`,
  );
  const ours = rssGrowthMiB(false);
  const leak = rssGrowthMiB(true);
  progress(`RSS growth ${round(ours, 2)} MiB, with the deliberate leak ${round(leak, 2)} MiB`);
  return {
    name: `RSS growth over ${RSS_CYCLES} define+lookup+undefine cycles (test:///default)`,
    ours: round(ours, 2),
    peer: round(leak, 2),
    unit: 'MiB',
    ratio: round(ours / leak, 2),
    // Measured: 0.1-3 MiB of growth, ~18 MiB with the leak; a third of the leak is far from both.
    goal: '<= 0.33 (a third of the growth the same cycles show when they leak their domain handles)',
    peerName: "the same cycles keeping each cycle's two domain handles alive",
    note: `after ${RSS_WARM} warm-up cycles, ${RSS_LANES} concurrent lanes, MALLOC_ARENA_MAX=1, after GC`,
  };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'vlt-libvirt-bench-'));
  const xmlDir = mkdtempSync(join(tmpdir(), 'vlt-libvirt-bench-xml-'));
  try {
    const started = spawnSync(SANDBOX, ['libvirtd', root, '--kvm', 'none'], { encoding: 'utf8' });
    if (started.status !== 0) throw new Error(`private libvirtd did not start: ${started.stderr}`);
    const uri = started.stdout.trim().split('\n').pop() ?? '';
    progress(`daemon at ${uri}; first connection probes QEMU (~5 s)`);
    const conn = await connect(uri);
    await oursCycles(conn, 'warm', 50, 1);
    virshBatch(uri, xmlDir, 'warmv', 20);

    const ours1: number[] = [];
    const oursN: number[] = [];
    const batch: number[] = [];
    const perProc: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      ours1.push(await oursCycles(conn, `o1-${r}`, CYCLES, 1));
      oursN.push(await oursCycles(conn, `on-${r}`, CYCLES, LANES));
      batch.push(virshBatch(uri, xmlDir, `vb-${r}`, CYCLES));
      perProc.push(virshPerProcess(uri, xmlDir, `vp-${r}`, PER_PROCESS_CYCLES));
      progress(
        `round ${r + 1}/${ROUNDS}: ours ${round(ours1[r]!)} /s, ours x${LANES} ${round(oursN[r]!)} /s, ` +
          `virsh batch ${round(batch[r]!)} /s, virsh per process ${round(perProc[r]!)} /s`,
      );
    }
    await conn.close();

    const note = `median of ${ROUNDS} rounds; private libvirtd 9.0 (QEMU driver), one connection each`;
    const make = (name: string, ours: number, peer: number, peerName: string, extra: string): Result => ({
      name,
      ours: round(ours),
      peer: round(peer),
      unit: 'cycles/s',
      ratio: round(ours / peer, 2),
      goal: '>= 1',
      peerName,
      note: `${note}; ${extra}`,
    });
    const results = [
      make(
        `define+lookup+undefine, sequential`,
        median(ours1),
        median(batch),
        'virsh -c URI, commands on stdin',
        `${CYCLES} cycles`,
      ),
      make(
        `define+lookup+undefine, ${LANES} concurrent lanes`,
        median(oursN),
        median(batch),
        'virsh -c URI, commands on stdin',
        `${CYCLES} cycles`,
      ),
      make(
        'define+lookup+undefine, sequential vs one virsh per command',
        median(ours1),
        median(perProc),
        'virsh -c URI CMD, one process per command',
        `ours ${CYCLES} cycles, virsh ${PER_PROCESS_CYCLES} cycles (3 processes each)`,
      ),
      memoryResult(),
    ];
    console.log(JSON.stringify({ suite: 'libvirt', results }));
  } finally {
    spawnSync(SANDBOX, ['stop', root]);
    rmSync(root, { recursive: true, force: true });
    rmSync(xmlDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'rss-child') await rssChild(process.argv[3] === 'leak');
else await main();
