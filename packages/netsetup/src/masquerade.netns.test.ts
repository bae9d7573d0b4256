// End to end in namespaces this test makes: pod eth0 on a veth to a node namespace, a guest namespace on the
// pod's bridge. Real ip, nft and sysctl; traffic only between these namespaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from './apply.js';
import { discoverPodInterface } from './discover.js';
import { listTables } from './owner.js';
import { planMasquerade } from './plan.js';
import { parsePorts } from './ports.js';
import { teardown } from './teardown.js';
import { MasqueradeRequest } from './gen/virtlauncher/netsetup/v1/netsetup.js';
import type { MasqueradePlan } from './gen/virtlauncher/netsetup/v1/netsetup.js';
import { NODE_IP, NODE_IP6, POD_IP, POD_IP6, Topology, sh } from './testing/topology.js';

const t = new Topology();
let hostRuleset = '';
let hostNames: string[] = [];
let eth0Before = '';
let plan: MasqueradePlan;

const linkState = () => sh('ip', '-n', t.pod, '-j', 'link');
/** `nft -j list ruleset` with counter values zeroed (the bridge's own multicast may pass); handles are kept. */
const podRuleset = async () =>
  (await sh('ip', 'netns', 'exec', t.pod, 'nft', '-j', 'list', 'ruleset')).replace(
    /"counter": \{"packets": \d+, "bytes": \d+\}/g,
    '"counter": {}',
  );
const sysctl = (key: string) => sh('ip', 'netns', 'exec', t.pod, 'sysctl', '-n', key);

async function planFor(ports: string): Promise<MasqueradePlan> {
  const pod = await discoverPodInterface(t.pod, 'eth0');
  return planMasquerade(
    MasqueradeRequest.fromPartial({ pod, ports: parsePorts(ports), ipv6: true, tapUid: 107, tapGid: 107, queues: 2 }),
  );
}

beforeAll(async () => {
  hostRuleset = await sh('nft', 'list', 'ruleset');
  hostNames = JSON.parse(await sh('ip', '-j', 'link')).map((l: { ifname: string }) => l.ifname);
  await t.create();
  eth0Before = await sh('ip', '-n', t.pod, '-j', 'addr', 'show', 'dev', 'eth0');
  await t.serve(t.node, 'node', [9000]);
  await t.serve(t.guest, 'guest', [80, 81]);
  plan = await planFor('tcp:80');
});

afterAll(async () => {
  await t.destroy();
});

// The first apply (and plugging the guest into the bridge it makes) happens once, in whichever test needs it
// first, so each test also passes when run alone (-t); the tests that change the rules restore them.
let firstApply: ReturnType<typeof applyPlan> | undefined;
const applied = () =>
  (firstApply ??= (async () => {
    const report = await applyPlan(plan, t.pod);
    await t.plugGuest('k6t-eth0');
    return report;
  })());

describe('masquerade in a pod namespace', () => {
  it('discovers the pod interface facts', async () => {
    const pod = await discoverPodInterface(t.pod, 'eth0');
    expect(pod.mtu).toBe(1400);
    expect(pod.ipv4Addresses).toEqual([{ address: POD_IP, prefixLength: 24 }]);
    expect(pod.ipv6Addresses).toEqual([{ address: POD_IP6, prefixLength: 64 }]);
    expect(pod.routes).toContainEqual({ destination: '10.213.0.0/24', gateway: '' });
    expect(pod.mac).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
  });

  it('the plan carries the guest addressing of both families and no DHCP configuration (phase 2 computes it)', () => {
    expect(plan.ipv4).toEqual({ guestIp: '10.0.2.2', gatewayIp: '10.0.2.1', prefixLength: 24 });
    expect(plan.ipv6).toEqual({ guestIp: 'fd10:0:2::2', gatewayIp: 'fd10:0:2::1', prefixLength: 120 });
    expect(Object.keys(plan)).not.toContain('dhcp');
  });

  it('applies bridge, tap, sysctls and NAT', async () => {
    const report = await applied();
    expect(report.noop).toBe(false);
    expect(report.createdLinks).toEqual(['k6t-eth0', 'tap0']);
    const [bridge] = JSON.parse(await sh('ip', '-n', t.pod, '-j', 'addr', 'show', 'dev', 'k6t-eth0'));
    expect(bridge.address).toBe('02:00:00:00:00:00');
    expect(bridge.mtu).toBe(1400);
    expect(bridge.addr_info.map((a: { local: string }) => a.local)).toEqual(
      expect.arrayContaining(['10.0.2.1', 'fd10:0:2::1']),
    );
    const [tap] = JSON.parse(await sh('ip', '-n', t.pod, '-j', '-d', 'link', 'show', 'dev', 'tap0'));
    expect(tap.master).toBe('k6t-eth0');
    expect(tap.mtu).toBe(1400);
    expect(tap.linkinfo.info_data).toMatchObject({ type: 'tap', user: 107, group: 107, multi_queue: true });
    expect(await sysctl('net.ipv4.ip_forward')).toBe('1');
    expect(await sysctl('net.ipv6.conf.all.forwarding')).toBe('1');
    expect(await sysctl('net/ipv4/conf/k6t-eth0/route_localnet')).toBe('1');
    const tables = await sh('ip', 'netns', 'exec', t.pod, 'nft', 'list', 'tables');
    expect(tables.split('\n').sort()).toEqual(['table ip nat', 'table ip6 nat']);
  });

  it('guest egress reaches the node with the pod address (IPv4 and IPv6)', async () => {
    await applied();
    expect(await t.connect(t.guest, NODE_IP, 9000, 10)).toBe(`node port=9000 peer=${POD_IP}`);
    expect(await t.connect(t.guest, NODE_IP6, 9000, 10)).toBe(`node port=9000 peer=${POD_IP6}`);
  });

  it('the declared port reaches the guest from the node, another port does not', async () => {
    await applied();
    expect(await t.connect(t.node, POD_IP, 80, 10)).toBe(`guest port=80 peer=${NODE_IP}`);
    expect(await t.connect(t.node, POD_IP6, 80, 10)).toBe(`guest port=80 peer=${NODE_IP6}`);
    // The guest listens on 81 too: only the NAT decides that it stays unreachable.
    expect(await t.connect(t.node, POD_IP, 81)).toBeNull();
    expect(await t.connect(t.node, POD_IP6, 81)).toBeNull();
  });

  it('the pod reaches the guest port through 127.0.0.1, seen from the gateway', async () => {
    await applied();
    expect(await t.connect(t.pod, '127.0.0.1', 80, 5)).toBe('guest port=80 peer=10.0.2.1');
  });

  it('re-applying the same plan changes nothing', async () => {
    await applied();
    const links = await linkState();
    const ruleset = await podRuleset();
    const report = await applyPlan(await planFor('tcp:80'), t.pod);
    expect(report).toMatchObject({ noop: true, linkCommands: [], nftChanged: false });
    expect(await linkState()).toBe(links);
    expect(await podRuleset()).toBe(ruleset);
    expect(ruleset).toContain('"handle"');
    expect(ruleset).toContain('"counter": {}');
  });

  it('a changed port list replaces only the rules, in place', async () => {
    await applied();
    const links = await linkState();
    const report = await applyPlan(await planFor(''), t.pod);
    expect(report).toMatchObject({ noop: false, nftChanged: true, linkCommands: [] });
    expect(await linkState()).toBe(links);
    expect(await t.connect(t.node, POD_IP, 81, 5)).toBe(`guest port=81 peer=${NODE_IP}`);
    await applyPlan(plan, t.pod);
    expect(await t.connect(t.node, POD_IP, 81)).toBeNull();
  });

  it('a rule removed by hand is put back by the next apply', async () => {
    await applied();
    const listing = await sh(
      'ip',
      'netns',
      'exec',
      t.pod,
      'nft',
      '-a',
      'list',
      'chain',
      'ip',
      'nat',
      'KUBEVIRT_PREINBOUND',
    );
    const handle = /dnat to 10\.0\.2\.2 # handle (\d+)/.exec(listing)![1]!;
    await sh(
      'ip',
      'netns',
      'exec',
      t.pod,
      'nft',
      'delete',
      'rule',
      'ip',
      'nat',
      'KUBEVIRT_PREINBOUND',
      'handle',
      handle,
    );
    expect(await t.connect(t.node, POD_IP, 80)).toBeNull();
    const report = await applyPlan(plan, t.pod);
    expect(report).toMatchObject({ nftChanged: true, linkCommands: [] });
    expect(await t.connect(t.node, POD_IP, 80, 5)).toBe(`guest port=80 peer=${NODE_IP}`);
  });

  it('teardown leaves eth0 as it was and removes only what apply made', async () => {
    await applied();
    const report = await teardown('eth0', t.pod);
    expect(report.linksDeleted).toEqual(['tap0', 'k6t-eth0']);
    expect(report.tablesDeleted).toEqual(['ip nat', 'ip6 nat']);
    expect(await sh('ip', '-n', t.pod, '-j', 'addr', 'show', 'dev', 'eth0')).toBe(eth0Before);
    expect(await sh('ip', 'netns', 'exec', t.pod, 'nft', 'list', 'ruleset')).toBe('');
    expect(await sysctl('net.ipv4.ip_forward')).toBe('0');
    expect(await sysctl('net.ipv6.conf.all.forwarding')).toBe('0');
    // The test's own veth (standing in for QEMU's side) is not ours: it stays.
    const names = JSON.parse(await linkState()).map((l: { ifname: string }) => l.ifname);
    expect(names.sort()).toEqual(['eth0', 'guestport', 'lo']);
    const again = await teardown('eth0', t.pod);
    expect(again).toEqual({ tablesDeleted: [], linksDeleted: [], sysctlsRestored: {} });
  });

  it('never touched the host', async () => {
    // Other work on this machine may change the host's links and unrelated tables meanwhile; what we could have
    // touched by running a command outside the namespace is compared exactly.
    const natTables = (ruleset: string) => listTables(ruleset).filter((x) => x.name === 'nat');
    const now = await sh('nft', 'list', 'ruleset');
    expect(natTables(now)).toEqual(natTables(hostRuleset));
    expect(now).not.toContain('virt-netsetup');
    const names: string[] = JSON.parse(await sh('ip', '-j', 'link')).map((l: { ifname: string }) => l.ifname);
    for (const ours of ['k6t-eth0', 'tap0', 'nodeside', 'guestport', 'geth0']) expect(names).not.toContain(ours);
    expect(names).toEqual(expect.arrayContaining(hostNames.filter((n) => n === 'lo' || n === 'eth0')));
  });
});
