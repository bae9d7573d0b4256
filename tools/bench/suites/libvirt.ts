// Benchmark of @virt-launcher/libvirt (run: npx tsx tools/bench/suites/libvirt.ts).
// define + lookup + undefine cycles per second against one private libvirtd, ours next to virsh doing the
// same against the same daemon in the same run: one `virsh -c URI` process fed every command on stdin (the
// fair peer: one connection, like ours), and one virsh process per command (what a shell script does).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
    ];
    console.log(JSON.stringify({ suite: 'libvirt', results }));
  } finally {
    spawnSync(SANDBOX, ['stop', root]);
    rmSync(root, { recursive: true, force: true });
    rmSync(xmlDir, { recursive: true, force: true });
  }
}

await main();
