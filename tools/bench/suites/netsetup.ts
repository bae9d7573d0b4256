// Masquerade setup time in a fresh pod namespace: @virt-launcher/netsetup (discover + plan + one ip batch +
// one nft transaction + one sysctl call) against a shell script running the same ip / sysctl / nft steps one
// command at a time, as KubeVirt's handler does. Interleaved repetitions, medians. Also the CLI end to end
// (Node start included) against the same script.
// Run: npx tsx tools/bench/suites/netsetup.ts   (root; needs `npm run build` in packages/netsetup first)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyPlan,
  discoverPodInterface,
  MasqueradeRequest,
  parsePorts,
  planMasquerade,
} from '@virt-launcher/netsetup';
import type { MasqueradePlan } from '@virt-launcher/netsetup';

const REPS = Number(process.env.BENCH_REPS ?? 7);
// The CLI as users run it: the committed bin, which loads the bundle `npm run build` makes (dist/virt-netsetup.js).
const CLI = fileURLToPath(new URL('../../../packages/netsetup/bin/virt-netsetup.js', import.meta.url));
const id = randomBytes(3).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'vlt-netsetup-bench-'));
const log = (msg: string): void => void process.stderr.write(`[netsetup bench] ${msg}\n`);
const sh = (cmd: string, args: string[]): string => execFileSync(cmd, args, { encoding: 'utf8' });

let counter = 0;
/** A fresh pod namespace with eth0 (a veth whose peer stays in the namespace); not timed. */
function freshPod(): string {
  counter += 1;
  const ns = `vlt-netsetup-${id}-b${counter}`;
  sh('ip', ['netns', 'add', ns]);
  execFileSync('ip', ['-n', ns, '-batch', '-'], {
    input: [
      'link add eth0 type veth peer name eth0-peer',
      'addr add 10.213.9.2/24 dev eth0',
      'link set eth0 up',
      'link set eth0-peer up',
    ].join('\n'),
  });
  return ns;
}

function removePod(ns: string): void {
  try {
    sh('ip', ['netns', 'del', ns]);
  } catch {
    // already gone
  }
}

/** The rules of a plan's table text, per chain, in order. */
function chainRules(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let chain = '';
  for (const line of text.split('\n')) {
    const m = /^\tchain (\S+) \{$/.exec(line);
    if (m) chain = m[1]!;
    else if (line.startsWith('\t\t') && !line.includes(' hook ')) out.push([chain, line.trim()]);
  }
  return out;
}

/** The peer: the same steps as separate commands, one process each. */
function peerScript(plan: MasqueradePlan): string {
  const b = plan.bridge!;
  const t = plan.tap!;
  const lines = [
    'set -e',
    'NS="$1"',
    'ip -n "$NS" -j addr show dev eth0 >/dev/null',
    `ip -n "$NS" link add ${b.name} type bridge`,
    `ip -n "$NS" link set ${b.name} address ${b.mac}`,
    `ip -n "$NS" link set ${b.name} mtu ${b.mtu}`,
    ...b.addresses.map((a) => `ip -n "$NS" addr add ${a} dev ${b.name}`),
    `ip -n "$NS" tuntap add dev ${t.name} mode tap user ${t.ownerUid} group ${t.ownerGid}`,
    `ip -n "$NS" link set ${t.name} mtu ${t.mtu}`,
    `ip -n "$NS" link set ${t.name} master ${t.master}`,
    `ip -n "$NS" link set ${t.name} up`,
    `ip -n "$NS" link set ${b.name} up`,
    ...plan.sysctls.map((s) => `ip netns exec "$NS" sysctl -q -w ${s.path}=${s.value}`),
  ];
  for (const table of plan.nftTables) {
    const nft = `ip netns exec "$NS" nft`;
    lines.push(`${nft} add table ${table.family} ${table.name}`);
    for (const m of table.text.matchAll(/\tchain (\S+) \{\n(?:\t\t(type [^\n]*))?/g)) {
      const spec = m[2] ? ` '{ ${m[2]} }'` : '';
      lines.push(`${nft} add chain ${table.family} ${table.name} ${m[1]}${spec}`);
    }
    for (const [chain, rule] of chainRules(table.text)) {
      lines.push(`${nft} add rule ${table.family} ${table.name} ${chain} ${rule.replace(/[{}]/g, "'$&'")}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

async function ours(ns: string): Promise<number> {
  const start = process.hrtime.bigint();
  const pod = await discoverPodInterface(ns, 'eth0');
  const plan = planMasquerade(
    MasqueradeRequest.fromPartial({ pod, ports: parsePorts('tcp:80'), tapUid: 107, tapGid: 107 }),
  );
  await applyPlan(plan, ns);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function timed(cmd: string, args: string[]): number {
  const start = process.hrtime.bigint();
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Both sides must leave the same NAT: same rule count in the pod. */
function ruleCount(ns: string): number {
  return (sh('ip', ['netns', 'exec', ns, 'nft', 'list', 'ruleset']).match(/ counter /g) ?? []).length;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const probe = freshPod();
  const pod = await discoverPodInterface(probe, 'eth0');
  const plan = planMasquerade(
    MasqueradeRequest.fromPartial({ pod, ports: parsePorts('tcp:80'), tapUid: 107, tapGid: 107 }),
  );
  removePod(probe);
  const script = join(dir, 'peer.sh');
  writeFileSync(script, peerScript(plan));
  log(`peer script: ${peerScript(plan).split('\n').length - 3} commands`);

  const samples = { lib: [] as number[], cli: [] as number[], peer: [] as number[] };
  let expectedRules = -1;
  for (let i = 0; i < REPS; i += 1) {
    for (const side of ['lib', 'peer', 'cli'] as const) {
      const ns = freshPod();
      try {
        const ms =
          side === 'lib'
            ? await ours(ns)
            : side === 'peer'
              ? timed('bash', [script, ns])
              : timed(process.execPath, [CLI, 'masquerade', '--netns', ns, '--pod-iface', 'eth0', '--ports', 'tcp:80']);
        const rules = ruleCount(ns);
        if (expectedRules < 0) expectedRules = rules;
        if (rules !== expectedRules) throw new Error(`${side} left ${rules} rules, expected ${expectedRules}`);
        samples[side].push(ms);
      } finally {
        removePod(ns);
      }
    }
    log(
      `rep ${i + 1}/${REPS}: lib ${samples.lib.at(-1)!.toFixed(1)} ms, cli ${samples.cli.at(-1)!.toFixed(1)} ms, script ${samples.peer.at(-1)!.toFixed(1)} ms`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  const peer = median(samples.peer);
  const note = `IPv4, port tcp:80, fresh namespace each time, ${REPS} interleaved repetitions, medians`;
  const result = (name: string, value: number) => ({
    name,
    ours: Number(value.toFixed(2)),
    peer: Number(peer.toFixed(2)),
    unit: 'ms',
    ratio: Number((value / peer).toFixed(3)),
    goal: '<= 1.0',
    peerName: 'bash script, same ip/sysctl/nft steps one command each',
    note,
  });
  process.stdout.write(
    `${JSON.stringify({
      suite: 'netsetup',
      results: [
        result('masquerade setup (library: discover + plan + apply)', median(samples.lib)),
        result('masquerade setup (virt-netsetup CLI, Node start included)', median(samples.cli)),
      ],
    })}\n`,
  );
}

main().catch((err: unknown) => {
  log(`failed: ${err instanceof Error ? err.message : String(err)}`);
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = 1;
});
