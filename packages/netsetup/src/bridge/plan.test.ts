import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeVifCache } from '@virt-launcher/shared';
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import type { PodInterfaceFacts } from '../gen/virtlauncher/netsetup/v1/netsetup.js';
import { hashedPodIfaceName } from './names.js';
import { planBridge } from './plan.js';
import { formatRecord, parseRecord } from './record.js';
import { bridgeRequestFor, podInterfaceNameFor } from './vmi-request.js';

const pod = (over: Partial<PodInterfaceFacts> = {}): PodInterfaceFacts => ({
  name: 'eth0',
  mac: '0A:58:0A:F4:07:07',
  mtu: 1400,
  ifindex: 2,
  ipv4Addresses: [{ address: '10.244.7.7', prefixLength: 24 }],
  ipv6Addresses: [],
  routes: [
    { destination: 'default', gateway: '10.244.7.1' },
    { destination: '10.244.7.0/24', gateway: '' },
    { destination: '10.99.0.0/16', gateway: '10.244.7.254' },
  ],
  ...over,
});

const vmi = {
  spec: {
    networks: [
      { name: 'default', pod: {} },
      { name: 'blue', multus: { networkName: 'blue-net' } },
    ],
    domain: {
      devices: {
        interfaces: [
          { name: 'default', bridge: {} },
          { name: 'blue', bridge: {}, macAddress: '02:aa:bb:cc:dd:ee' },
        ],
      },
    },
  },
};

describe('planBridge', () => {
  it('moves the pod address into the vif-cache for the pod MAC; the bridge holds 169.254.75.1<index>', () => {
    const plan = planBridge(bridgeRequestFor(vmi, 'default', pod(), { tapUid: 107, tapGid: 107 }));
    expect(plan.nic).toBe('eth0-nic');
    expect(plan.bridge).toMatchObject({ name: 'k6t-eth0', mtu: 1400, addresses: ['169.254.75.10/32'] });
    expect(plan.tap).toMatchObject({ name: 'tap0', master: 'k6t-eth0', mtu: 1400, ownerUid: 107 });
    // The port and the bridge share a derived MAC; the guest keeps the pod's.
    expect(plan.bridge.mac).toBe(plan.nicMac);
    expect(plan.nicMac).not.toBe(plan.guestMac);
    expect(plan.nicMac).toMatch(/^02(:[0-9a-f]{2}){5}$/);
    expect(plan.guestMac).toBe('0a:58:0a:f4:07:07');
    expect(plan.arpIgnore).toBe(true);
    // Only what discoverbridge.go caches: no name, MTU, subdomain, DNS or server address (phase 2 adds them).
    expect(plan.dhcpCache).toEqual({
      name: '',
      mtu: 0,
      subdomain: '',
      ipamDisabled: false,
      ipv4: { address: '10.244.7.7', prefixLength: 24 },
      mac: '0a:58:0a:f4:07:07',
      gateway: '10.244.7.1',
      // The pod subnet's own route is left out; the default one stays (destination undefined).
      routes: [{ gateway: '10.244.7.1' }, { destination: '10.99.0.0/16', gateway: '10.244.7.254' }],
    });
  });

  it('names a secondary network by the hash of its name, and takes the VMI macAddress and position', () => {
    const podIface = podInterfaceNameFor(vmi, 'blue');
    expect(podIface).toBe(hashedPodIfaceName('blue'));
    expect(podIface).toMatch(/^pod[0-9a-f]{11}$/);
    const onlySubnet = [{ destination: '10.244.7.0/24', gateway: '' }];
    const plan = planBridge(bridgeRequestFor(vmi, 'blue', pod({ name: podIface, routes: onlySubnet })));
    const hash = podIface.slice(3);
    expect([plan.nic, plan.bridge.name, plan.tap.name]).toEqual([`${hash}-nic`, `k6t-${hash}`, `tap${hash}`]);
    expect(plan.bridge.addresses).toEqual(['169.254.75.11/32']);
    // The first route is the on-link subnet's: no gateway, and no route left to hand out (null, not []).
    expect(plan.dhcpCache).toMatchObject({ mac: '02:aa:bb:cc:dd:ee', ipv4: { address: '10.244.7.7' } });
    expect(plan.dhcpCache.gateway).toBeUndefined();
    expect(plan.dhcpCache.routes).toBeUndefined();
  });

  it('without an IPv4 address: IPAM disabled and nothing else cached, no bridge address, no arp_ignore', () => {
    const plan = planBridge(
      bridgeRequestFor(vmi, 'blue', pod({ name: hashedPodIfaceName('blue'), ipv4Addresses: [], routes: [] })),
    );
    expect(plan.dhcpCache).toEqual({ name: '', mtu: 0, subdomain: '', ipamDisabled: true });
    expect(plan.bridge.addresses).toEqual([]);
    expect(plan.arpIgnore).toBe(false);
  });

  it('takes the MAC of the VMI status when the spec names none, and the spec MAC over both', () => {
    const withStatus = { ...vmi, status: { interfaces: [{ name: 'default', mac: '02:11:22:33:44:55' }] } };
    expect(planBridge(bridgeRequestFor(withStatus, 'default', pod())).dhcpCache.mac).toBe('02:11:22:33:44:55');
    const both = { ...withStatus, status: { interfaces: [{ name: 'blue', mac: '02:11:22:33:44:55' }] } };
    const blue = pod({ name: hashedPodIfaceName('blue') });
    expect(planBridge(bridgeRequestFor(both, 'blue', blue)).guestMac).toBe('02:aa:bb:cc:dd:ee');
    const bad = { ...vmi, status: { interfaces: [{ name: 'default', mac: 'nope' }] } };
    expect(() => planBridge(bridgeRequestFor(bad, 'default', pod()))).toThrow(/status interface MAC "nope"/);
  });

  it('keeps only IPv4 routes, the gateway from the first one; refuses an address with no IPv4 route', () => {
    const routes = [
      { destination: '10.244.7.0/24', gateway: '' },
      { destination: 'default', gateway: '10.244.7.1' },
      { destination: 'fd10::/64', gateway: '' },
      { destination: 'default', gateway: 'fd10::1' },
      { destination: 'default', gateway: '' },
      { destination: '10.1.2.3', gateway: '10.244.7.9' },
    ];
    const plan = planBridge(bridgeRequestFor(vmi, 'default', pod({ routes })));
    // KubeVirt's gateway is the first IPv4 route's next hop, here the on-link subnet route's: none.
    expect(plan.dhcpCache.gateway).toBeUndefined();
    expect(plan.dhcpCache.routes).toEqual([
      { gateway: '10.244.7.1' },
      { destination: '10.1.2.3/32', gateway: '10.244.7.9' },
    ]);
    const v6Only = [{ destination: 'default', gateway: 'fd10::1' }];
    expect(() => planBridge(bridgeRequestFor(vmi, 'default', pod({ routes: v6Only })))).toThrow(
      /no gateway address found in routes for eth0/,
    );
  });

  it("encodes to the bytes KubeVirt's own code wrote for the same pod (shared testdata vectors)", () => {
    // packages/shared/testdata/kubevirt-vif-cache was written by KubeVirt v1.9.0's cache package (README.md there).
    const vector = (name: string) =>
      readFileSync(join(import.meta.dirname, '../../../shared/testdata/kubevirt-vif-cache', name), 'utf8');
    const routes = [
      { destination: 'default', gateway: '10.244.7.1' },
      { destination: '10.99.0.0/16', gateway: '10.244.7.254' },
      { destination: '10.244.7.0/24', gateway: '' },
      { destination: '192.168.50.0/24', gateway: '' },
    ];
    const withRoutes = { ...vmi, status: { interfaces: [{ name: 'default', mac: '02:AA:BB:CC:DD:EE' }] } };
    const plan = planBridge(bridgeRequestFor(withRoutes, 'default', pod({ routes })));
    expect(encodeVifCache(plan.dhcpCache)).toBe(vector('ipv4-routes.gojson'));
    // Every route is the subnet's (the first one through the gateway): a gateway and no routes (null).
    const subnetOnly = pod({
      routes: [
        { destination: '10.244.7.0/24', gateway: '10.244.7.1' },
        { destination: '10.244.7.0/24', gateway: '' },
      ],
    });
    expect(encodeVifCache(planBridge(bridgeRequestFor(vmi, 'default', subnetOnly)).dhcpCache)).toBe(
      vector('ipv4-mac-gateway.gojson'),
    );
    const none = pod({ name: hashedPodIfaceName('blue'), ipv4Addresses: [] });
    expect(encodeVifCache(planBridge(bridgeRequestFor(vmi, 'blue', none)).dhcpCache)).toBe(
      vector('ipam-disabled.gojson'),
    );
  });

  it('refuses a pod interface that does not match the network kind, and a bad MAC, naming the value', () => {
    expect(() => planBridge(bridgeRequestFor(vmi, 'blue', pod()))).toThrow(/"eth0".*secondary/);
    expect(() => planBridge(bridgeRequestFor(vmi, 'default', pod({ mac: 'zz' })))).toThrow(InvalidRequestError);
    expect(() => bridgeRequestFor(vmi, 'nope', pod())).toThrow(/"nope"/);
    const masq = { spec: { ...vmi.spec, domain: { devices: { interfaces: [{ name: 'default', masquerade: {} }] } } } };
    expect(() => bridgeRequestFor(masq, 'default', pod())).toThrow(/does not use the bridge binding/);
  });

  it('keeps the pod interface in an alias-sized owner record that reads back', () => {
    const plan = planBridge(bridgeRequestFor(vmi, 'default', pod()));
    const text = formatRecord(plan, '0');
    expect(text).not.toMatch(/\s/);
    expect(parseRecord(text)).toEqual({
      pod: 'eth0',
      nic: 'eth0-nic',
      mac: '0a:58:0a:f4:07:07',
      arpIgnorePrior: '0',
      addresses: ['10.244.7.7/24'],
      routes: plan.podRoutes,
    });
    const many = {
      ...plan,
      podRoutes: Array.from({ length: 40 }, (_, i) => ({ destination: `10.${i}.0.0/16`, gateway: '10.244.7.1' })),
    };
    expect(formatRecord(many, '0').length).toBeLessThanOrEqual(255);
    expect(parseRecord('something else')).toBeUndefined();
  });
});
