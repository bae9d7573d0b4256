import { describe, expect, it } from 'vitest';
import { InvalidCidrError, InvalidPortError, InvalidRequestError } from './errors.js';
import { parsePorts } from './ports.js';
import { guestFamilies, planMasquerade } from './plan.js';
import { MasqueradeRequest } from './gen/virtlauncher/netsetup/v1/netsetup.js';
import type { PodInterfaceFacts } from './gen/virtlauncher/netsetup/v1/netsetup.js';

const pod: PodInterfaceFacts = {
  name: 'eth0',
  mac: '0a:58:0a:f4:01:07',
  mtu: 1450,
  ifindex: 3,
  ipv4Addresses: [{ address: '10.244.1.7', prefixLength: 24 }],
  ipv6Addresses: [
    { address: 'fd00:10:244::7', prefixLength: 64 },
    { address: 'fe80::1', prefixLength: 64 },
  ],
  routes: [{ destination: 'default', gateway: '10.244.1.1' }],
};

function request(overrides: Partial<MasqueradeRequest> = {}): MasqueradeRequest {
  return MasqueradeRequest.fromPartial({ pod, tapUid: 107, tapGid: 107, ...overrides });
}

/** The rules of one chain of one family's table, as rendered. */
function chain(text: string, name: string): string[] {
  const block = text.split(`\tchain ${name} {\n`)[1]?.split('\n\t}')[0] ?? '';
  return block
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('type '));
}

describe('planMasquerade: nft golden lines (docs/masquerade.md#nftables)', () => {
  it('IPv4 without ports forwards everything to the guest', () => {
    const plan = planMasquerade(request());
    const t = plan.nftTables.find((x) => x.family === 'ip')!.text;
    expect(plan.nftTables.map((x) => x.family)).toEqual(['ip']);
    expect(chain(t, 'postrouting')).toEqual([
      'ip saddr 10.0.2.2 counter masquerade',
      'oifname k6t-eth0 counter jump KUBEVIRT_POSTINBOUND',
    ]);
    expect(chain(t, 'prerouting')).toEqual(['iifname eth0 counter jump KUBEVIRT_PREINBOUND']);
    expect(chain(t, 'KUBEVIRT_PREINBOUND')).toEqual(['counter dnat to 10.0.2.2']);
    expect(chain(t, 'KUBEVIRT_POSTINBOUND')).toEqual(['ip saddr { 127.0.0.1 } counter snat to 10.0.2.1']);
    expect(chain(t, 'output')).toEqual(['ip daddr { 127.0.0.1 } counter dnat to 10.0.2.2']);
    expect(chain(t, 'input')).toEqual([]);
  });

  it('declares the chains with KubeVirt hooks and numeric priorities in one table "ip nat"', () => {
    const t = planMasquerade(request()).nftRuleset;
    expect(t.startsWith('table ip nat {\n')).toBe(true);
    for (const line of [
      'type nat hook prerouting priority -100; policy accept;',
      'type nat hook input priority 100; policy accept;',
      'type nat hook output priority -100; policy accept;',
      'type nat hook postrouting priority 100; policy accept;',
    ]) {
      expect(t).toContain(line);
    }
    const order = [...t.matchAll(/\tchain (\S+) \{/g)].map((m) => m[1]);
    expect(order).toEqual([
      'prerouting',
      'input',
      'output',
      'postrouting',
      'KUBEVIRT_PREINBOUND',
      'KUBEVIRT_POSTINBOUND',
    ]);
    expect(t).not.toContain('dstnat');
  });

  it('port 80 only forwards that port', () => {
    const t = planMasquerade(request({ ports: parsePorts('tcp:80') })).nftRuleset;
    expect(chain(t, 'KUBEVIRT_PREINBOUND')).toEqual(['tcp dport { 80 } counter dnat to 10.0.2.2']);
    expect(chain(t, 'KUBEVIRT_POSTINBOUND')).toEqual(['tcp dport 80 ip saddr { 127.0.0.1 } counter snat to 10.0.2.1']);
    expect(chain(t, 'output')).toEqual(['ip daddr { 127.0.0.1 } tcp dport 80 counter dnat to 10.0.2.2']);
  });

  it('IPv6 variant is the twin with ip6, fd10:0:2::/120 and ::1', () => {
    const plan = planMasquerade(request({ ipv6: true }));
    expect(plan.nftTables.map((x) => x.family)).toEqual(['ip', 'ip6']);
    const t = plan.nftTables[1]!.text;
    expect(t.startsWith('table ip6 nat {')).toBe(true);
    expect(chain(t, 'postrouting')).toEqual([
      'ip6 saddr fd10:0:2::2 counter masquerade',
      'oifname k6t-eth0 counter jump KUBEVIRT_POSTINBOUND',
    ]);
    expect(chain(t, 'KUBEVIRT_PREINBOUND')).toEqual(['counter dnat to fd10:0:2::2']);
    expect(chain(t, 'KUBEVIRT_POSTINBOUND')).toEqual(['ip6 saddr { ::1 } counter snat to fd10:0:2::1']);
    expect(chain(t, 'output')).toEqual(['ip6 daddr { ::1 } counter dnat to fd10:0:2::2']);
    expect(plan.bridge!.addresses).toEqual(['10.0.2.1/24', 'fd10:0:2::1/120']);
    expect(plan.sysctls.map((s) => s.path)).toContain('net/ipv6/conf/all/forwarding');
  });

  it('several ports, udp and a range keep their declared order', () => {
    const t = planMasquerade(request({ ports: parsePorts('tcp:80,UDP:53,8000-8010') })).nftRuleset;
    expect(chain(t, 'KUBEVIRT_PREINBOUND')).toEqual([
      'tcp dport { 80 } counter dnat to 10.0.2.2',
      'udp dport { 53 } counter dnat to 10.0.2.2',
      'tcp dport 8000-8010 counter dnat to 10.0.2.2',
    ]);
    expect(chain(t, 'output')[2]).toBe('ip daddr { 127.0.0.1 } tcp dport 8000-8010 counter dnat to 10.0.2.2');
  });

  it('legacy migration ports stay in the pod', () => {
    const t = planMasquerade(request({ legacyMigrationPorts: true })).nftRuleset;
    const keep = 'tcp dport { 49152, 49153 } ip saddr 127.0.0.1 counter return';
    expect(chain(t, 'output')[0]).toBe(keep);
    expect(chain(t, 'KUBEVIRT_POSTINBOUND')[0]).toBe(keep);
  });

  it('istio: envoy ports excluded, only ssh forwarded, 127.0.0.6 and the pod IP handled', () => {
    const t = planMasquerade(request({ istio: true })).nftRuleset;
    expect(chain(t, 'KUBEVIRT_PREINBOUND')).toEqual(['tcp dport { 22 } counter dnat to 10.0.2.2']);
    expect(chain(t, 'output')).toEqual([
      'tcp dport { 15000, 15001, 15004, 15006, 15008, 15009, 15020, 15021, 15053, 15090 } ip saddr 127.0.0.1 counter return',
      'ip daddr { 127.0.0.1, 10.244.1.7 } counter dnat to 10.0.2.2',
    ]);
    expect(chain(t, 'KUBEVIRT_POSTINBOUND')[1]).toBe('ip saddr { 127.0.0.1, 127.0.0.6 } counter snat to 10.0.2.1');
    const withPorts = planMasquerade(request({ istio: true, ports: parsePorts('tcp:80,tcp:22') })).nftRuleset;
    expect(chain(withPorts, 'KUBEVIRT_PREINBOUND')).toEqual(['tcp dport { 22 } counter dnat to 10.0.2.2']);
  });

  // Each range gets KubeVirt's three rules with the range bare (start-end, a one-port range too); behind istio
  // only tcp 22 is forwarded from outside, when a range covers it whatever its protocol.
  it.each([
    {
      name: 'port ranges',
      ports: 'udp:5000-5010,tcp:7-7',
      istio: false,
      preinbound: ['udp dport 5000-5010 counter dnat to 10.0.2.2', 'tcp dport 7-7 counter dnat to 10.0.2.2'],
      loopbacks: '127.0.0.1',
      daddrs: '127.0.0.1',
      dports: ['udp dport 5000-5010', 'tcp dport 7-7'],
    },
    {
      name: 'port ranges behind istio',
      ports: 'udp:20-30,tcp:8000-8010',
      istio: true,
      preinbound: ['tcp dport { 22 } counter dnat to 10.0.2.2'],
      loopbacks: '127.0.0.1, 127.0.0.6',
      daddrs: '127.0.0.1, 10.244.1.7',
      dports: ['udp dport 20-30', 'tcp dport 8000-8010'],
    },
  ])('$name: $ports', ({ ports, istio, preinbound, loopbacks, daddrs, dports }) => {
    const t = planMasquerade(request({ istio, ports: parsePorts(ports) })).nftRuleset;
    expect(chain(t, 'KUBEVIRT_PREINBOUND')).toEqual(preinbound);
    expect(chain(t, 'KUBEVIRT_POSTINBOUND')).toEqual(
      dports.map((d) => `${d} ip saddr { ${loopbacks} } counter snat to 10.0.2.1`),
    );
    expect(chain(t, 'output')).toEqual(dports.map((d) => `ip daddr { ${daddrs} } ${d} counter dnat to 10.0.2.2`));
  });
});

describe('planMasquerade: links, sysctls, addressing', () => {
  it('bridge and tap follow KubeVirt names, MAC, MTU and owner', () => {
    const plan = planMasquerade(request({ queues: 4 }));
    expect(plan.bridge).toEqual({ name: 'k6t-eth0', mac: '02:00:00:00:00:00', mtu: 1450, addresses: ['10.0.2.1/24'] });
    expect(plan.tap).toEqual({
      name: 'tap0',
      master: 'k6t-eth0',
      mtu: 1450,
      ownerUid: 107,
      ownerGid: 107,
      queues: 4,
      multiqueue: true,
    });
    expect(plan.sysctls).toEqual([
      { path: 'net/ipv4/ip_forward', value: '1' },
      { path: 'net/ipv4/conf/k6t-eth0/route_localnet', value: '1' },
    ]);
  });

  it('secondary interfaces get hashed bridge and tap names', () => {
    const secondary = { ...pod, name: 'pod1a2b3c4d5e6' };
    const plan = planMasquerade(request({ pod: secondary }));
    expect(plan.bridge!.name).toBe('k6t-1a2b3c4d5e6');
    expect(plan.tap!.name).toBe('tap1a2b3c4d5e6');
    expect(plan.nftRuleset).toContain('iifname pod1a2b3c4d5e6 counter jump');
  });

  it('custom VM CIDRs move gateway and guest', () => {
    const plan = planMasquerade(
      request({ ipv6: true, vmNetworkCidr: '192.168.77.0/22', vmIpv6NetworkCidr: 'fd20:1::/64' }),
    );
    expect(plan.ipv4).toEqual({ gatewayIp: '192.168.76.1', guestIp: '192.168.76.2', prefixLength: 22 });
    expect(plan.ipv6).toEqual({ gatewayIp: 'fd20:1::1', guestIp: 'fd20:1::2', prefixLength: 64 });
    expect(plan.nftRuleset).toContain('ip saddr 192.168.76.2 counter masquerade');
  });

  it('rejects bad input with typed errors', () => {
    expect(() => planMasquerade(request({ vmNetworkCidr: '10.0.0.0/31' }))).toThrow(InvalidCidrError);
    expect(() => planMasquerade(request({ vmNetworkCidr: 'fd00::/64' }))).toThrow(InvalidCidrError);
    expect(() => planMasquerade(request({ ports: [{ protocol: 'tcp', port: 70000, portEnd: 0 }] }))).toThrow(
      InvalidPortError,
    );
    expect(() => planMasquerade(request({ ports: [{ protocol: 'icmp', port: 1, portEnd: 0 }] }))).toThrow(
      InvalidPortError,
    );
    expect(() => planMasquerade(request({ pod: { ...pod, ipv6Addresses: [] }, ipv6: true }))).toThrow(
      InvalidRequestError,
    );
    expect(() => planMasquerade(request({ pod: { ...pod, ipv4Addresses: [] } }))).toThrow(InvalidRequestError);
    expect(() => planMasquerade(request({ queues: 300 }))).toThrow(InvalidRequestError);
    expect(() => planMasquerade(request({ tapName: 'a-name-far-too-long' }))).toThrow(InvalidRequestError);
  });

  it('only IPv6 when the pod has no IPv4', () => {
    const plan = planMasquerade(request({ pod: { ...pod, ipv4Addresses: [] }, ipv6: true }));
    expect(plan.nftTables.map((x) => x.family)).toEqual(['ip6']);
    expect(plan.ipv4).toBeUndefined();
    expect(plan.sysctls).toEqual([{ path: 'net/ipv6/conf/all/forwarding', value: '1' }]);
  });
});

describe('guestFamilies (the step that picks the guest address families)', () => {
  const cidrs = { vmNetworkCidr: '', vmIpv6NetworkCidr: '' };
  it('IPv4 from a global pod IPv4 address, IPv6 only when requested', () => {
    expect(guestFamilies(pod, { ...cidrs, ipv6: false })).toEqual({
      ipv4: { gatewayIp: '10.0.2.1', guestIp: '10.0.2.2', prefixLength: 24 },
      ipv6: undefined,
    });
    const both = guestFamilies(pod, { ...cidrs, ipv6: true });
    expect(both.ipv4?.guestIp).toBe('10.0.2.2');
    expect(both.ipv6?.prefixLength).toBeGreaterThan(0);
  });

  it('a custom CIDR moves the gateway and guest addresses', () => {
    expect(guestFamilies(pod, { ...cidrs, vmNetworkCidr: '192.168.7.0/28', ipv6: false }).ipv4).toEqual({
      gatewayIp: '192.168.7.1',
      guestIp: '192.168.7.2',
      prefixLength: 28,
    });
  });

  it('refuses IPv6 without a global pod IPv6 address, and a pod with no family left', () => {
    const linkLocalOnly = { ...pod, ipv6Addresses: [{ address: 'fe80::1', prefixLength: 64 }] };
    expect(() => guestFamilies(linkLocalOnly, { ...cidrs, ipv6: true })).toThrow(InvalidRequestError);
    const noV4 = { ...linkLocalOnly, ipv4Addresses: [] };
    expect(() => guestFamilies(noV4, { ...cidrs, ipv6: false })).toThrow(/no global IPv4 address/);
  });
});
