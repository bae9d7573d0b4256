// Benchmark of @virt-launcher/converter: VMI JSON text -> domain XML (parseVmi + convert + toDomainXml,
// the honest end-to-end "conversion") for VM A and the golden x86_64 VMI, against a floor measured in the
// same run: JSON.parse of the same input plus building an XML string of the output's size. Fairness:
// every function is warmed up first; then ROUNDS rounds each time ours and the floor for ROUND_MS apiece,
// alternating which goes first, and the median round counts (the machine is shared, so single runs
// swing). Both sides' XML is read (flattened), as a caller would. Each part (parseVmi, convert,
// toDomainXml; the floor's two halves) is then timed alone in a second group of rounds. Run pinned for
// a one-core figure: `taskset -c 0 npx tsx …`.
// Progress on stderr; the last stdout line is the result JSON (CONTRIBUTING.md, "Benchmarks").
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConverterContext, convert, parseVmi, toDomainXml } from '@virt-launcher/converter';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const ROUND_MS = Number(process.env.BENCH_MS ?? 300);
const GOAL_RATE = 10_000;
const GOAL_SLOWDOWN = 3;

let sink = 0; // results feed this so V8 cannot drop the work

/**
 * Reads a character from the middle of a result. Our document is a rope of concatenated pieces until
 * something flattens it (writing it to libvirt does); the floor's join() is flat already. Reading it
 * makes both sides pay for a usable string, as a real caller would; `.length` alone would not.
 */
function use(text: string): number {
  return text.charCodeAt(text.length >> 1);
}

/** Calls per second of fn over about `ms` milliseconds (clock read every 20 calls). */
function rate(fn: () => number, ms: number): number {
  let count = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(ms * 1e6));
  let now = start;
  while (now < end) {
    for (let i = 0; i < 20; i++) sink += fn();
    count += 20;
    now = process.hrtime.bigint();
  }
  return count / (Number(now - start) / 1e9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] as number;
}

interface Rate {
  median: number;
  min: number;
  max: number;
}

/** Warms every function, then times them round-robin (rotating the start) and returns median rates. */
function interleaved<K extends string>(fns: Record<K, () => number>): Record<K, Rate> {
  const names = Object.keys(fns) as K[];
  for (const name of names) rate(fns[name], Math.max(200, ROUND_MS)); // let V8 optimise before timing
  const rounds = new Map<K, number[]>(names.map((n) => [n, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length] as K;
      rounds.get(name)!.push(rate(fns[name], ROUND_MS));
    }
  }
  const out = {} as Record<K, Rate>;
  for (const [name, rs] of rounds) out[name] = { median: median(rs), min: Math.min(...rs), max: Math.max(...rs) };
  return out;
}

/** The floor's two halves: JSON.parse of the input, and an XML string of `xmlLength` built line by line. */
function floorParts(text: string, xmlLength: number) {
  const line = '  <controller type="pci" index="1" model="pcie-root-port"/>\n';
  const lines = Math.max(1, Math.round(xmlLength / line.length));
  const parse = () => JSON.parse(text) as { metadata: { name: string } };
  const build = (name: string) => {
    const parts: string[] = [`<domain><name>${name}</name>\n`];
    for (let i = 0; i < lines; i++) parts.push(line.replace('1', String(i)));
    return parts.join('');
  };
  return {
    whole: () => use(build(parse().metadata.name)),
    parse: () => (parse().metadata ? 1 : 0),
    build: () => use(build('vm')),
  };
}

const us = (perSecond: number) => 1e6 / perSecond;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function cpusAllowed(): string {
  try {
    return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '?';
  } catch {
    return '?';
  }
}

/** `admission: false` for KubeVirt's converter test VMI, whose names (pvc_block_test) never went through admission. */
function suite(name: string, text: string, context: ConverterContext, admission = true) {
  const vmi = parseVmi(text, { admission });
  const domain = convert(vmi, context);
  const xmlLength = toDomainXml(domain).length;
  const floor = floorParts(text, xmlLength);
  process.stderr.write(`converter bench: ${name} (${text.length} B in, ${xmlLength} B out), load ${load()}\n`);
  // The headline pair is timed on its own, so the parts' rounds neither separate it in time nor
  // change what V8 learns about it; the parts follow as a second interleaved group.
  const r = {
    ...interleaved({
      e2e: () => use(toDomainXml(convert(parseVmi(text, { admission }), context))),
      floorWhole: floor.whole,
    }),
    ...interleaved({
      parse: () => (parseVmi(text, { admission }).spec ? 1 : 0),
      conv: () => convert(vmi, context).devices.disks.length,
      xml: () => use(toDomainXml(domain)),
      jsonParse: floor.parse,
      xmlBuild: floor.build,
    }),
  };
  const show = (label: string, x: Rate) =>
    process.stderr.write(
      `  ${label.padEnd(26)} ${x.median.toFixed(0).padStart(8)}/s  ${us(x.median).toFixed(2).padStart(7)} us  (rounds ${x.min.toFixed(0)}–${x.max.toFixed(0)}/s)\n`,
    );
  show('ours: parse+convert+xml', r.e2e);
  show('floor: JSON.parse+string', r.floorWhole);
  show('parseVmi alone', r.parse);
  show('convert alone', r.conv);
  show('toDomainXml alone', r.xml);
  show('floor: JSON.parse alone', r.jsonParse);
  show('floor: string build alone', r.xmlBuild);
  process.stderr.write(`  load after: ${load()}\n`);
  return r;
}

const note = () =>
  `median of ${ROUNDS} interleaved rounds x ${ROUND_MS} ms after warm-up; CPUs allowed ${cpusAllowed()}; load average ${load()}`;
const results = [];
const hostLike = ConverterContext.fromJSON({
  architecture: 'amd64',
  hypervisorDeviceAvailable: false,
  allowEmulation: true,
  libvirtVersion: '9.0.0',
});
const vmA = suite('VM A', readFileSync(join(root, 'packages/converter/fixtures/vm-a.json'), 'utf8'), {
  ...hostLike,
  isBlockPvc: {},
  podInterfaces: { default: { tapName: 'tap0', mac: '02:00:00:12:34:56', mtu: 1500 } },
});
results.push({
  name: 'VM A conversions/s, parseVmi + convert + toDomainXml (goal >= 10,000)',
  ours: Math.round(vmA.e2e.median),
  peer: GOAL_RATE,
  peerName: 'the issue goal, 10,000 conversions/s',
  unit: 'conv/s',
  ratio: vmA.e2e.median / GOAL_RATE,
  goal: '>= 1',
  note: note(),
});
results.push({
  name: 'VM A time per conversion vs floor (goal <= 3x)',
  ours: us(vmA.e2e.median),
  peer: us(vmA.floorWhole.median),
  peerName: 'floor: JSON.parse of the input + building an XML string of the output size',
  unit: 'us',
  ratio: vmA.floorWhole.median / vmA.e2e.median,
  goal: `<= ${GOAL_SLOWDOWN}`,
  note: note(),
});
const parts: [string, Rate, Rate, string][] = [
  ['parseVmi alone (JSON.parse + validate + defaults)', vmA.parse, vmA.jsonParse, 'floor: JSON.parse alone'],
  ['convert alone (31 configurators)', vmA.conv, vmA.floorWhole, 'floor: whole floor (no peer of its own)'],
  ['toDomainXml alone', vmA.xml, vmA.xmlBuild, 'floor: string build alone'],
];
for (const [label, ours, peer, peerName] of parts) {
  results.push({
    name: `VM A ${label}`,
    ours: us(ours.median),
    peer: us(peer.median),
    peerName,
    unit: 'us',
    ratio: peer.median / ours.median,
    goal: 'report only',
  });
}

const golden = join(root, 'packages', 'converter', 'testdata', 'kubevirt', 'x86_64');
if (existsSync(golden)) {
  const ctx = ConverterContext.fromJSON(JSON.parse(readFileSync(join(golden, 'context.json'), 'utf8')));
  const x86 = suite('golden x86_64', readFileSync(join(golden, 'vmi.json'), 'utf8'), ctx, false);
  results.push({
    name: 'golden x86_64 (7 KB VMI) time per conversion vs floor',
    ours: us(x86.e2e.median),
    peer: us(x86.floorWhole.median),
    peerName: 'floor: JSON.parse of the input + building an XML string of the output size',
    unit: 'us',
    ratio: x86.floorWhole.median / x86.e2e.median,
    goal: 'report only',
    note: `${Math.round(x86.e2e.median)} conv/s; ${note()}`,
  });
}

if (sink === -1) process.stderr.write('');
console.log(JSON.stringify({ suite: 'converter', results }));
