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
  resolvConf: 'search ns1.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\n',
  hostname: 'vm1',
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
          { name: 'default', bridge: {}, dhcpOptions: { ntpServers: ['10.0.0.5'] } },
          { name: 'blue', bridge: {}, macAddress: '02:aa:bb:cc:dd:ee' },
        ],
      },
    },
  },
};

describe('planBridge', () => {
  it('moves the pod address into a DHCP config for the pod MAC, served from 169.254.75.1<index>', () => {
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
    expect(plan.dhcp.v6).toBeUndefined();
    expect(plan.dhcp.v4).toMatchObject({
      interfaceName: 'k6t-eth0',
      serverIp: '169.254.75.10',
      clientMac: '0a:58:0a:f4:07:07',
      clientIpCidr: '10.244.7.7/24',
      router: '10.244.7.1',
      dnsServers: ['10.96.0.10'],
      searchDomains: ['ns1.svc.cluster.local', 'svc.cluster.local'],
      mtu: 1400,
      ntpServers: ['10.0.0.5'],
      // The pod subnet's own route is left out; the default one stays (option 121 overrides option 3).
      routes: [
        { destination: '0.0.0.0/0', gateway: '10.244.7.1' },
        { destination: '10.99.0.0/16', gateway: '10.244.7.254' },
      ],
    });
  });

  it('names a secondary network by the hash of its name, and takes the VMI macAddress and position', () => {
    const podIface = podInterfaceNameFor(vmi, 'blue');
    expect(podIface).toBe(hashedPodIfaceName('blue'));
    expect(podIface).toMatch(/^pod[0-9a-f]{11}$/);
    const plan = planBridge(bridgeRequestFor(vmi, 'blue', pod({ name: podIface, routes: [] })));
    const hash = podIface.slice(3);
    expect([plan.nic, plan.bridge.name, plan.tap.name]).toEqual([`${hash}-nic`, `k6t-${hash}`, `tap${hash}`]);
    expect(plan.dhcp.v4).toMatchObject({ serverIp: '169.254.75.11', clientMac: '02:aa:bb:cc:dd:ee', router: '' });
    expect(plan.dhcp.v4?.routes).toEqual([]);
  });

  it('without an IPv4 address: no DHCP, no bridge address, no arp_ignore (link only)', () => {
    const plan = planBridge(
      bridgeRequestFor(vmi, 'blue', pod({ name: hashedPodIfaceName('blue'), ipv4Addresses: [], routes: [] })),
    );
    expect(plan.dhcp).toEqual({ v4: undefined, v6: undefined });
    expect(plan.bridge.addresses).toEqual([]);
    expect(plan.arpIgnore).toBe(false);
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
