// A VMI interface's portRanges (KubeVirt's PortRangesSpec) forwarded by real nftables rules, in namespaces this
// test makes: a node namespace reaches the guest's ports inside the ranges through the pod's address, of the
// range's protocol only, and nothing outside them; the pod's own legacy migration ports stay in the pod even
// when a range covers them. Real ip, nft and sysctl; traffic only between these namespaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from './apply.js';
import { discoverPodInterface } from './discover.js';
import { planMasquerade } from './plan.js';
import { masqueradeRequestFor, type VmiLike } from './vmi-request.js';
import { NODE_IP, NODE_IP6, POD_IP, POD_IP6, Topology, sh } from './testing/topology.js';

const t = new Topology();

const vmi: VmiLike = {
  spec: {
    networks: [{ name: 'default', pod: {} }],
    domain: {
      devices: {
        interfaces: [
          {
            name: 'default',
            masquerade: {},
            portRanges: [
              { protocol: 'TCP', start: 8000, end: 8010 },
              { protocol: 'UDP', start: 5300, end: 5310 },
              { protocol: 'TCP', start: 49150, end: 49155 },
            ],
          },
        ],
      },
    },
  },
};

beforeAll(async () => {
  await t.create();
  await t.serve(t.node, 'node', [9000]);
  // The guest listens inside, at the edges of and outside every range: only the NAT decides what is reached.
  await t.serve(t.guest, 'guest', [7999, 8000, 8005, 8010, 8011, 5305, 49152, 49154]);
  await t.serve(t.guest, 'guest', ['udp:5299', 'udp:5300', 'udp:5305', 'udp:5310', 'udp:5311']);
  // The pod's own migration port: KubeVirt's skip rule keeps loopback traffic to it in the pod.
  await t.serve(t.pod, 'pod', [49152]);
});

afterAll(async () => {
  await t.destroy();
});

let applying: Promise<unknown> | undefined;
const applied = () =>
  (applying ??= (async () => {
    const pod = await discoverPodInterface(t.pod, 'eth0');
    const request = masqueradeRequestFor(vmi, 'default', pod, { tapUid: 107, tapGid: 107, legacyMigrationPorts: true });
    const plan = planMasquerade(request);
    await applyPlan(plan, t.pod);
    await t.plugGuest('k6t-eth0');
    // Settle the links once (neighbour discovery, bridge port state) so the checks below need one attempt each.
    expect(await t.connect(t.node, POD_IP, 8005, 10)).toBe(`guest port=8005 peer=${NODE_IP}`);
    expect(await t.connect(t.node, POD_IP6, 8005, 10)).toBe(`guest port=8005 peer=${NODE_IP6}`);
    return plan;
  })());

describe('portRanges of a masquerade interface', () => {
  it('the nft ruleset in the pod holds KubeVirt’s range rules', async () => {
    await applied();
    const listing = await sh('ip', 'netns', 'exec', t.pod, 'nft', 'list', 'chain', 'ip', 'nat', 'KUBEVIRT_PREINBOUND');
    expect(listing).toMatch(/tcp dport 8000-8010 counter packets \d+ bytes \d+ dnat to 10\.0\.2\.2/);
    expect(listing).toMatch(/udp dport 5300-5310 counter packets \d+ bytes \d+ dnat to 10\.0\.2\.2/);
    // Ranges declared: no rule forwards everything.
    expect(listing).not.toMatch(/^\s*counter packets \d+ bytes \d+ dnat to/m);
  });

  it('TCP ports inside the range reach the guest from the node (IPv4 and IPv6), ports outside do not', async () => {
    await applied();
    for (const port of [8000, 8005, 8010]) {
      expect(await t.connect(t.node, POD_IP, port)).toBe(`guest port=${port} peer=${NODE_IP}`);
      expect(await t.connect(t.node, POD_IP6, port)).toBe(`guest port=${port} peer=${NODE_IP6}`);
    }
    for (const port of [7999, 8011]) {
      expect(await t.connect(t.node, POD_IP, port)).toBeNull();
      expect(await t.connect(t.node, POD_IP6, port)).toBeNull();
    }
  });

  it('a UDP range forwards UDP only: datagrams inside it reach the guest, TCP to the same port does not', async () => {
    await applied();
    for (const port of [5300, 5305, 5310]) {
      expect(await t.connect(t.node, POD_IP, port, 1, 'udp')).toBe(`guest udp port=${port} peer=${NODE_IP}`);
    }
    expect(await t.connect(t.node, POD_IP6, 5305, 1, 'udp')).toBe(`guest udp port=5305 peer=${NODE_IP6}`);
    expect(await t.connect(t.node, POD_IP, 5299, 1, 'udp')).toBeNull();
    expect(await t.connect(t.node, POD_IP, 5311, 1, 'udp')).toBeNull();
    expect(await t.connect(t.node, POD_IP, 5305)).toBeNull();
  });

  it('the pod reaches a ranged port through 127.0.0.1 (seen from the gateway), but keeps its migration port', async () => {
    await applied();
    expect(await t.connect(t.pod, '127.0.0.1', 8005)).toBe('guest port=8005 peer=10.0.2.1');
    expect(await t.connect(t.pod, '127.0.0.1', 49154)).toBe('guest port=49154 peer=10.0.2.1');
    expect(await t.connect(t.pod, '127.0.0.1', 49152)).toBe('pod port=49152 peer=127.0.0.1');
    // From outside, the range covers 49152 too: KubeVirt's skip rule is for the pod's own loopback traffic.
    expect(await t.connect(t.node, POD_IP, 49152)).toBe(`guest port=49152 peer=${NODE_IP}`);
  });
});
