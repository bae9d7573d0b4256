// The DHCP part of the plan is the contracts' DhcpServerConfig, filled by netsetup's resolv.conf rules: the
// bytes a caller caches are what @virt-launcher/dhcp decodes, and the lease is the one contracts define.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_SECONDS, DhcpServerConfig } from '@virt-launcher/contracts';
import { planMasquerade } from './plan.js';
import { MasqueradeRequest } from './gen/virtlauncher/netsetup/v1/netsetup.js';

const plan = (resolvConf: string, ipv6 = false) =>
  planMasquerade(
    MasqueradeRequest.fromPartial({
      pod: {
        name: 'eth0',
        mac: '0a:58:0a:f4:01:07',
        mtu: 1450,
        ifindex: 3,
        ipv4Addresses: [{ address: '10.244.1.7', prefixLength: 24 }],
        ipv6Addresses: [{ address: 'fd00:10:244::7', prefixLength: 64 }],
        resolvConf,
        hostname: 'vm',
      },
      ipv6,
      dhcpOptions: { ntpServers: [], privateOptions: [{ code: 240, value: Buffer.from('x') }] },
    }),
  );

describe('MasqueradePlan.dhcp', () => {
  it('survives the cache: encoded as the plan carries it, decoded as DhcpServerConfig', () => {
    const dhcp = plan('search Default.svc.cluster.local\nnameserver 10.96.0.10\nnameserver fd00::10\n', true).dhcp!;
    expect(DhcpServerConfig.decode(DhcpServerConfig.encode(dhcp).finish())).toEqual(dhcp);
    expect(dhcp.v4).toMatchObject({
      leaseSeconds: DEFAULT_LEASE_SECONDS,
      dnsServers: ['10.96.0.10'],
      searchDomains: ['default.svc.cluster.local'],
      privateOptions: [{ code: 240, value: Buffer.from('x') }],
    });
    // IPv6 nameservers go to the DHCPv6 server (option 23), never into option 6.
    expect(dhcp.v6).toMatchObject({ leaseSeconds: DEFAULT_LEASE_SECONDS, dnsServers: ['fd00::10'] });
  });

  it('IPv6 brings router advertisements of the guest network with the pod MTU', () => {
    const v6 = plan('nameserver fd00::10\n', true).dhcp!.v6!;
    expect(v6.routerAdvert).toMatchObject({ prefix: 'fd10:0:2::1/120', mtu: 1450, dnsServers: ['fd00::10'] });
  });

  it('gives the guest 8.8.8.8 and cluster.local when resolv.conf names neither', () => {
    expect(plan('options ndots:5\n').dhcp!.v4).toMatchObject({
      dnsServers: ['8.8.8.8'],
      searchDomains: ['cluster.local'],
    });
  });
});
