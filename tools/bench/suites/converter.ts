// Benchmark of @virt-launcher/converter: VMI JSON text -> domain XML per second on one core, for VM A
// and for the golden x86_64 VMI, against a floor measured in the same run (JSON.parse of the same input
// plus building an XML string of the output's size). Progress on stderr; the last stdout line is the
// result JSON (CONTRIBUTING.md, "Benchmarks").
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConverterContext, convert, parseVmi, toDomainXml } from '@virt-launcher/converter';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DURATION_MS = Number(process.env.BENCH_MS ?? 2000);

function rate(fn: () => number): number {
  let sink = 0;
  for (let i = 0; i < 200; i++) sink += fn(); // warm-up: let V8 optimise before timing
  let count = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(DURATION_MS) * 1_000_000n;
  let now = start;
  while (now < end) {
    for (let i = 0; i < 50; i++) sink += fn();
    count += 50;
    now = process.hrtime.bigint();
  }
  if (sink === -1) process.stderr.write('');
  return count / (Number(now - start) / 1e9);
}

/** JSON.parse of the input and an XML string of the same length built element by element. */
function floor(text: string, xmlLength: number): () => number {
  const line = '  <controller type="pci" index="1" model="pcie-root-port"/>\n';
  const lines = Math.max(1, Math.round(xmlLength / line.length));
  return () => {
    const parsed = JSON.parse(text) as { metadata: { name: string } };
    const parts: string[] = [`<domain><name>${parsed.metadata.name}</name>\n`];
    for (let i = 0; i < lines; i++) parts.push(line.replace('1', String(i)));
    return parts.join('').length;
  };
}

function suite(name: string, text: string, context: ConverterContext) {
  const ours = () => toDomainXml(convert(parseVmi(text), context)).length;
  const xmlLength = ours();
  process.stderr.write(`converter bench: ${name} (${text.length} B in, ${xmlLength} B out)\n`);
  const oursRate = rate(ours);
  const peerRate = rate(floor(text, xmlLength));
  process.stderr.write(`  ours ${oursRate.toFixed(0)}/s, floor ${peerRate.toFixed(0)}/s\n`);
  return { oursRate, peerRate };
}

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
  name: 'VM A conversions/s (goal >= 10000)',
  ours: Math.round(vmA.oursRate),
  peer: Math.round(vmA.peerRate),
  unit: 'conv/s',
  ratio: vmA.oursRate / vmA.peerRate,
  goal: 'ours >= 10000 and peer/ours <= 3',
});
results.push({
  name: 'VM A floor/ours slowdown (goal <= 3)',
  ours: vmA.peerRate / vmA.oursRate,
  peer: 3,
  unit: 'x',
  ratio: vmA.peerRate / vmA.oursRate / 3,
  goal: '<= 3',
});

const golden = join(root, '..', 'shared', 'golden', 'x86_64');
if (existsSync(golden)) {
  const ctx = ConverterContext.fromJSON(JSON.parse(readFileSync(join(golden, 'context.json'), 'utf8')));
  const x86 = suite('golden x86_64', readFileSync(join(golden, 'vmi.json'), 'utf8'), ctx);
  results.push({
    name: 'golden x86_64 conversions/s',
    ours: Math.round(x86.oursRate),
    peer: Math.round(x86.peerRate),
    unit: 'conv/s',
    ratio: x86.oursRate / x86.peerRate,
    goal: 'peer/ours <= 3',
  });
}

console.log(JSON.stringify({ suite: 'converter', results }));
