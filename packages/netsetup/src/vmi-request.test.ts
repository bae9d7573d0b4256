import { describe, expect, it } from 'vitest';
import { InvalidPortError, InvalidRequestError } from './errors.js';
import { planMasquerade } from './plan.js';
import { masqueradeRequestFor, type VmiLike } from './vmi-request.js';
import type { PodInterfaceFacts } from './gen/virtlauncher/netsetup/v1/netsetup.js';

const dualStack: PodInterfaceFacts = {
  name: 'eth0',
  mac: '0a:58:0a:f4:01:07',
  mtu: 1450,
  ifindex: 3,
  ipv4Addresses: [{ address: '10.244.1.7', prefixLength: 24 }],
  ipv6Addresses: [{ address: 'fd00:10:244::7', prefixLength: 64 }],
  routes: [],
};
const v4Only: PodInterfaceFacts = { ...dualStack, ipv6Addresses: [{ address: 'fe80::1', prefixLength: 64 }] };

function vmi(extra: { annotations?: Record<string, string>; pod?: object; iface?: object } = {}): VmiLike {
  return {
    metadata: { annotations: extra.annotations ?? {} },
    spec: {
      subdomain: 'sub',
      networks: [{ name: 'default', pod: { ...extra.pod } }],
      domain: { devices: { interfaces: [{ name: 'default', masquerade: {}, ...extra.iface }] } },
    },
  };
}

describe('masqueradeRequestFor (what the VMI asks for, decided as KubeVirt does)', () => {
  it('custom CIDRs move gateway, guest and nft rules of both families', () => {
    const request = masqueradeRequestFor(
      vmi({ pod: { vmNetworkCIDR: '10.11.12.0/24', vmIPv6NetworkCIDR: 'fd20:5::/64' } }),
      'default',
      dualStack,
    );
    const plan = planMasquerade(request);
    expect(plan.bridge?.addresses).toEqual(['10.11.12.1/24', 'fd20:5::1/64']);
    expect(plan.ipv4).toEqual({ guestIp: '10.11.12.2', gatewayIp: '10.11.12.1', prefixLength: 24 });
    expect(plan.ipv6).toEqual({ guestIp: 'fd20:5::2', gatewayIp: 'fd20:5::1', prefixLength: 64 });
    expect(plan.nftTables.map((t) => t.family)).toEqual(['ip', 'ip6']);
    expect(plan.nftTables[0]?.text).toContain('counter dnat to 10.11.12.2');
    expect(plan.nftTables[1]?.text).toContain('counter dnat to fd20:5::2');
    expect(plan.nftTables[1]?.text).toContain('ip6 saddr fd20:5::2 counter masquerade');
  });

  it('IPv6 exactly when the pod interface has a global IPv6 address', () => {
    expect(masqueradeRequestFor(vmi(), 'default', dualStack).ipv6).toBe(true);
    const plan = planMasquerade(masqueradeRequestFor(vmi(), 'default', v4Only));
    expect(plan.ipv6).toBeUndefined();
    expect(plan.nftTables.map((t) => t.family)).toEqual(['ip']);
  });

  it('ports of both families, protocol defaulting to TCP and lower-cased', () => {
    const plan = planMasquerade(
      masqueradeRequestFor(
        vmi({ iface: { ports: [{ port: 80 }, { name: 'dns', protocol: 'UDP', port: 53 }] } }),
        'default',
        dualStack,
      ),
    );
    for (const [i, guest] of [
      [0, '10.0.2.2'],
      [1, 'fd10:0:2::2'],
    ] as const) {
      expect(plan.nftTables[i]?.text).toContain(`tcp dport { 80 } counter dnat to ${guest}`);
      expect(plan.nftTables[i]?.text).toContain(`udp dport { 53 } counter dnat to ${guest}`);
    }
  });

  it('portRanges are forwarded as ranges in both families, after the declared ports', () => {
    const portRanges = [
      { protocol: 'TCP', start: 8000, end: 8010 },
      { protocol: 'UDP', start: 5353, end: 5353 },
    ];
    const request = masqueradeRequestFor(vmi({ iface: { ports: [{ port: 80 }], portRanges } }), 'default', dualStack);
    expect(request.ports).toEqual([
      { protocol: 'tcp', port: 80, portEnd: 0 },
      { protocol: 'tcp', port: 8000, portEnd: 8010 },
      { protocol: 'udp', port: 5353, portEnd: 5353 },
    ]);
    const plan = planMasquerade(request);
    for (const [i, family, guest, gateway, lo] of [
      [0, 'ip', '10.0.2.2', '10.0.2.1', '127.0.0.1'],
      [1, 'ip6', 'fd10:0:2::2', 'fd10:0:2::1', '::1'],
    ] as const) {
      const text = plan.nftTables[i]!.text;
      expect(text).toContain(`tcp dport 8000-8010 counter dnat to ${guest}\n`);
      expect(text).toContain(`udp dport 5353-5353 counter dnat to ${guest}\n`);
      expect(text).toContain(`tcp dport 8000-8010 ${family} saddr { ${lo} } counter snat to ${gateway}\n`);
      expect(text).toContain(`${family} daddr { ${lo} } tcp dport 8000-8010 counter dnat to ${guest}\n`);
      // With ports or ranges declared, nothing else is forwarded.
      expect(text).not.toContain(`\t\tcounter dnat to ${guest}\n`);
    }
  });

  it('refuses a portRanges entry that is not TCP/UDP or not a valid range, naming it', () => {
    for (const bad of [
      { protocol: 'SCTP', start: 1, end: 2 },
      { protocol: 'TCP', start: 0, end: 10 },
      { protocol: 'UDP', start: 20, end: 10 },
    ]) {
      expect(() => masqueradeRequestFor(vmi({ iface: { portRanges: [bad] } }), 'default', dualStack)).toThrow(
        InvalidPortError,
      );
    }
  });

  it('istio from the sidecar annotation (any case of "true"), envoy ports kept in the pod', () => {
    const on = masqueradeRequestFor(vmi({ annotations: { 'sidecar.istio.io/inject': 'True' } }), 'default', v4Only);
    expect(on.istio).toBe(true);
    expect(planMasquerade(on).nftRuleset).toContain('tcp dport { 15000, 15001, 15004, 15006, 15008');
    const off = masqueradeRequestFor(vmi({ annotations: { 'sidecar.istio.io/inject': 'false' } }), 'default', v4Only);
    expect(off.istio).toBe(false);
  });

  it('refuses an interface that is missing, not masquerade, or not on the pod network', () => {
    expect(() => masqueradeRequestFor(vmi(), 'nope', dualStack)).toThrow(/no interface "nope"/);
    expect(() => masqueradeRequestFor(vmi({ iface: { masquerade: undefined } }), 'default', dualStack)).toThrow(
      InvalidRequestError,
    );
    const multus: VmiLike = { spec: { ...vmi().spec, networks: [{ name: 'default', multus: {} }] } };
    expect(() => masqueradeRequestFor(multus, 'default', dualStack)).toThrow(/not the pod network/);
    expect(() => masqueradeRequestFor(vmi({ iface: { ports: [{ port: 70000 }] } }), 'default', dualStack)).toThrow(
      InvalidPortError,
    );
  });
});
