// Which NICs get a DHCP server and which MAC the guest's bridge NIC must carry: the netsetup bridge plan, cached
// as a stock virt-handler writes it (vif-cache-<pod iface>.json), decides both.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bridgeRequestFor, hashedPodIfaceName, planBridge, writeBridgeDhcpCache } from '@virt-launcher/netsetup';
import type { VmiView } from '../vmi.js';
import { readVifCache } from './bridge-dhcp.js';
import { secondaryPodIfaceName } from '@virt-launcher/shared';
import { bridgeGuestMacs, dhcpTargets } from './dhcp-targets.js';

const spec = {
  networks: [
    { name: 'default', pod: {} },
    { name: 'blue', multus: { networkName: 'blue-net' } },
    { name: 'green', multus: { networkName: 'green-net' } },
  ],
  domain: {
    devices: {
      interfaces: [
        { name: 'default', bridge: {} },
        { name: 'blue', bridge: {} },
        { name: 'green', bridge: {}, macAddress: '02:00:00:00:be:ef' },
      ],
    },
  },
};
const vmi = { networks: spec.networks, interfaces: spec.domain.devices.interfaces } as unknown as VmiView;

const facts = (name: string, ipv4: boolean) => ({
  name,
  mac: '0a:58:0a:f4:07:07',
  mtu: 1400,
  ifindex: 2,
  ipv4Addresses: ipv4 ? [{ address: '10.244.7.7', prefixLength: 24 }] : [],
  ipv6Addresses: [],
  routes: [{ destination: 'default', gateway: '10.244.7.1' }],
  resolvConf: 'nameserver 10.96.0.10\n',
  hostname: 'vm',
});

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-dhcp-targets-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('dhcpTargets', () => {
  it('names the pod network eth0 and a Multus network by its hash, as netsetup does', () => {
    const blue = hashedPodIfaceName('blue');
    expect(secondaryPodIfaceName('blue')).toBe(blue);
    expect(dhcpTargets(vmi)).toEqual([
      { iface: 'default', podIface: 'eth0', bridge: 'k6t-eth0', binding: 'bridge' },
      { iface: 'blue', podIface: blue, bridge: `k6t-${blue.slice(3)}`, binding: 'bridge' },
      {
        iface: 'green',
        podIface: hashedPodIfaceName('green'),
        bridge: `k6t-${hashedPodIfaceName('green').slice(3)}`,
        binding: 'bridge',
      },
    ]);
  });

  it('a masquerade NIC only on the pod network', () => {
    const masq = {
      networks: [
        { name: 'default', pod: {} },
        { name: 'm', multus: {} },
      ],
      interfaces: [
        { name: 'default', masquerade: {} },
        { name: 'm', masquerade: {} },
      ],
    } as unknown as VmiView;
    expect(dhcpTargets(masq).map((t) => t.iface)).toEqual(['default']);
  });
});

describe('bridgeGuestMacs', () => {
  it('gives a bridge NIC the MAC its cached lease is for; a VMI macAddress or no IPAM leaves it alone', async () => {
    const blue = hashedPodIfaceName('blue');
    for (const [name, pod, ipv4] of [
      ['default', 'eth0', true],
      ['blue', blue, false],
    ] as const) {
      // What netsetup's phase 1 writes, as virt-handler writes it.
      await writeBridgeDhcpCache(dir, planBridge(bridgeRequestFor({ spec }, name, facts(pod, ipv4))));
    }
    expect(await bridgeGuestMacs(dir, vmi)).toEqual({ default: '0a:58:0a:f4:07:07' });
    // No IPAM: KubeVirt's discoverbridge.go writes IPAMDisabled and nothing else.
    const noIpam = await readVifCache(dir, blue);
    expect([noIpam.ipamDisabled, noIpam.ipv4, noIpam.mac]).toEqual([true, undefined, undefined]);
  });

  it('a VMI naming no NIC gets the default masquerade NIC its converter gives it (autoattach off: none)', () => {
    const bare = { interfaces: [], networks: [], raw: Buffer.from('{"spec":{"domain":{"devices":{}}}}') };
    expect(dhcpTargets(bare as unknown as VmiView)).toEqual([
      { iface: 'default', podIface: 'eth0', bridge: 'k6t-eth0', binding: 'masquerade' },
    ]);
    const off = { ...bare, raw: Buffer.from('{"spec":{"domain":{"devices":{"autoattachPodInterface":false}}}}') };
    expect(dhcpTargets(off as unknown as VmiView)).toEqual([]);
  });
});
