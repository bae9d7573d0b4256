// Bad input and failures against a real pod namespace: typed errors, and nothing left half-applied.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from './apply.js';
import { discoverPodInterface } from './discover.js';
import {
  ApplyError,
  InterfaceNotFoundError,
  InvalidRequestError,
  NamespaceNotFoundError,
  TableConflictError,
} from './errors.js';
import { LinkConflictError } from './links.js';
import { planMasquerade } from './plan.js';
import { teardown } from './teardown.js';
import { MasqueradePlan, MasqueradeRequest } from './gen/virtlauncher/netsetup/v1/netsetup.js';
import { sh } from './testing/topology.js';

const ns = `vlt-netsetup-${randomBytes(3).toString('hex')}-err`;
// The bin as users run it (it loads the bundle of dist/cli.js).
const CLI = fileURLToPath(new URL('../bin/virt-netsetup.js', import.meta.url));
let plan: MasqueradePlan;

/** Everything apply could change: links with addresses, the ruleset, the forwarding switch. */
async function snapshot(): Promise<string[]> {
  return Promise.all([
    sh('ip', '-n', ns, '-j', 'addr'),
    nftListing(),
    sh('ip', 'netns', 'exec', ns, 'sysctl', '-n', 'net.ipv4.ip_forward'),
  ]);
}

/** The pod's ruleset without counter values: the bridge's own packets (IGMP, say) may pass meanwhile. */
async function nftListing(): Promise<string> {
  return (await sh('ip', 'netns', 'exec', ns, 'nft', 'list', 'ruleset')).replace(
    /counter packets \d+ bytes \d+/g,
    'counter',
  );
}

const cli = (...args: string[]) => execa(process.execPath, [CLI, ...args], { reject: false });

beforeAll(async () => {
  await sh('ip', 'netns', 'add', ns);
  await sh('ip', 'netns', 'exec', ns, 'sysctl', '-q', '-w', 'net.ipv6.conf.default.accept_dad=0');
  await sh('ip', '-n', ns, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'other');
  await sh('ip', '-n', ns, 'addr', 'add', '10.213.1.2/24', 'dev', 'eth0');
  await sh('ip', '-n', ns, 'link', 'set', 'eth0', 'up');
  const pod = await discoverPodInterface(ns, 'eth0');
  plan = planMasquerade(MasqueradeRequest.fromPartial({ pod }));
});

afterAll(async () => {
  await execa('ip', ['netns', 'del', ns], { reject: false });
});

describe('validation before any change', () => {
  it('unknown namespace', async () => {
    await expect(discoverPodInterface('vlt-netsetup-none', 'eth0')).rejects.toBeInstanceOf(NamespaceNotFoundError);
    await expect(applyPlan(plan, 'vlt-netsetup-none')).rejects.toBeInstanceOf(NamespaceNotFoundError);
    await expect(teardown('eth0', '../etc')).rejects.toBeInstanceOf(NamespaceNotFoundError);
  });

  it('missing interface', async () => {
    const before = await snapshot();
    await expect(discoverPodInterface(ns, 'eth7')).rejects.toBeInstanceOf(InterfaceNotFoundError);
    await expect(applyPlan({ ...plan, podInterface: 'eth7' }, ns)).rejects.toBeInstanceOf(InterfaceNotFoundError);
    expect(await snapshot()).toEqual(before);
  });

  it('a foreign "ip nat" table (iptables-nft, say) is refused and left alone', async () => {
    await execa('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], {
      input:
        'table ip nat {\n\tchain POSTROUTING {\n\t\ttype nat hook postrouting priority 100; policy accept;\n\t}\n}\n',
    });
    const before = await snapshot();
    await expect(applyPlan(plan, ns)).rejects.toBeInstanceOf(TableConflictError);
    expect(await snapshot()).toEqual(before);
    await teardown('eth0', ns);
    expect(await snapshot()).toEqual(before);
    await sh('ip', 'netns', 'exec', ns, 'nft', 'delete', 'table', 'ip', 'nat');
  });

  it('a link named like our bridge that is not a bridge is refused', async () => {
    await sh('ip', '-n', ns, 'link', 'add', 'k6t-eth0', 'type', 'veth', 'peer', 'name', 'k6t-peer');
    const before = await snapshot();
    await expect(applyPlan(plan, ns)).rejects.toBeInstanceOf(LinkConflictError);
    expect(await snapshot()).toEqual(before);
    await sh('ip', '-n', ns, 'link', 'del', 'k6t-eth0');
  });

  it('a tampered plan is refused before any command', async () => {
    const before = await snapshot();
    const bad = [
      { ...plan, bridge: { ...plan.bridge!, addresses: ['10.0.2.1/24\nlink del eth0'] } },
      { ...plan, tap: { ...plan.tap!, name: 'tap0 up' } },
      { ...plan, nftTables: [{ family: 'inet', name: 'filter', text: 'flush ruleset\n' }] },
      { ...plan, nftTables: [{ ...plan.nftTables[0]!, text: `${plan.nftTables[0]!.text}flush ruleset\n` }] },
    ];
    for (const p of bad) await expect(applyPlan(p, ns)).rejects.toBeInstanceOf(InvalidRequestError);
    expect(await snapshot()).toEqual(before);
  });
});

describe('rollback', () => {
  it('a link step failing half-way removes the links and tables this call made', async () => {
    const before = await snapshot();
    // A tap's MTU cannot exceed 65521: the batch fails after creating the bridge and the tap.
    const bad = { ...plan, bridge: { ...plan.bridge!, mtu: 65535 }, tap: { ...plan.tap!, mtu: 65535 } };
    const err = await applyPlan(bad, ns).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyError);
    expect((err as ApplyError).step).toBe('links');
    expect((err as ApplyError).rolledBack).toEqual(['links', 'nftables']);
    expect(await snapshot()).toEqual(before);
  });

  it('a failed re-apply puts our previous table back', async () => {
    await applyPlan(plan, ns);
    try {
      const rulesetBefore = await nftListing();
      const pod = await discoverPodInterface(ns, 'eth0');
      const other = planMasquerade(
        MasqueradeRequest.fromPartial({ pod, ports: [{ protocol: 'udp', port: 53, portEnd: 0 }] }),
      );
      const err = await applyPlan({ ...other, tap: { ...other.tap!, mtu: 65535 } }, ns).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApplyError);
      expect(await nftListing()).toBe(rulesetBefore);
    } finally {
      await teardown('eth0', ns);
    }
  });
});

describe('virt-netsetup CLI', () => {
  it('exits 2 with one line on bad input', async () => {
    for (const args of [
      ['masquerade', '--netns', 'vlt-netsetup-none', '--pod-iface', 'eth0'],
      ['masquerade', '--netns', ns, '--pod-iface', 'eth9'],
      ['masquerade', '--netns', ns, '--pod-iface', 'eth0', '--ports', 'tcp:0'],
      ['masquerade', '--netns', ns, '--pod-iface', 'eth0', '--ports', 'icmp:7'],
      ['teardown', '--netns', 'vlt-netsetup-none', '--pod-iface', 'eth0'],
    ]) {
      const r = await cli(...args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^virt-netsetup: (network namespace|interface|invalid port)/);
    }
  });

  it('masquerade prints the plan with the guest addressing; teardown undoes it', async () => {
    const before = await snapshot();
    const r = await cli(
      'masquerade',
      '--netns',
      ns,
      '--pod-iface',
      'eth0',
      '--ports',
      'tcp:80,udp:53',
      '--output',
      'json',
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const printed = MasqueradePlan.fromJSON(out.plan);
    expect(printed.ipv4).toEqual({ guestIp: '10.0.2.2', gatewayIp: '10.0.2.1', prefixLength: 24 });
    expect(printed.nftRuleset).toContain('udp dport { 53 } counter dnat to 10.0.2.2');
    expect(out.applied.noop).toBe(false);
    expect(await sh('ip', 'netns', 'exec', ns, 'nft', 'list', 'tables')).toBe('table ip nat');
    const down = await cli('teardown', '--netns', ns, '--pod-iface', 'eth0', '--output', 'json');
    expect(down.exitCode, down.stderr).toBe(0);
    expect(JSON.parse(down.stdout).linksDeleted).toEqual(['tap0', 'k6t-eth0']);
    expect(await snapshot()).toEqual(before);
  });
});
