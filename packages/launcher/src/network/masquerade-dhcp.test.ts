// KubeVirt's masquerade phase 2 (pkg/network/dhcp/masquerade.go, pkg/network/link/address.go,
// pkg/network/driver/common.go StartDHCP): what the launcher serves, from the pod's own facts only.
import { describe, expect, it } from 'vitest';
import type { InvalidRequestError } from '../errors.js';
import { masqueradeDhcpConfig, type MasqueradeDhcpInputs } from './masquerade-dhcp.js';
import type { PodLinkFacts } from './pod-link.js';
import { parseResolvConf } from './resolv-conf.js';

const bridge: PodLinkFacts = { name: 'k6t-eth0', mtu: 1450, mac: '02:00:00:00:00:00', ipv4: ['10.0.2.1'], ipv6: [] };
const v4Pod: PodLinkFacts = { name: 'eth0', mtu: 1450, mac: '0a:58:0a:f4:01:07', ipv4: ['10.244.1.7'], ipv6: [] };
const dualPod: PodLinkFacts = { ...v4Pod, ipv6: ['fe80::858:aff:fef4:107', 'fd00:10:244:1::7'] };
const v6Pod: PodLinkFacts = { ...v4Pod, ipv4: [], ipv6: ['fd00:10:244:1::7'] };
const dns = parseResolvConf(
  'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\nnameserver fd00:10:96::a\n',
);

const inputs = (over: Partial<MasqueradeDhcpInputs> = {}): MasqueradeDhcpInputs => ({
  iface: 'default',
  bridge,
  pod: v4Pod,
  network: {},
  dns,
  subdomain: '',
  hostname: 'vmi-test',
  ...over,
});

describe('masqueradeDhcpConfig', () => {
  it('the default VMI: 10.0.2.2/24 from 10.0.2.1, the pod MTU, DNS and search list, no IPv6', () => {
    const config = masqueradeDhcpConfig(inputs());
    expect(config.v4).toMatchObject({
      interfaceName: 'k6t-eth0',
      serverIp: '10.0.2.1',
      clientMac: '',
      clientIpCidr: '10.0.2.2/24',
      router: '10.0.2.1',
      dnsServers: ['10.96.0.10'],
      searchDomains: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      domainName: 'default.svc.cluster.local',
      mtu: 1450,
      hostname: 'vmi-test',
    });
    expect(config.v6).toBeUndefined();
  });

  it('dual stack when the pod NIC has a global IPv6 address (fd10:0:2::/120 by default)', () => {
    const config = masqueradeDhcpConfig(inputs({ pod: dualPod }));
    expect(config.v4?.clientIpCidr).toBe('10.0.2.2/24');
    expect(config.v6).toMatchObject({
      interfaceName: 'k6t-eth0',
      clientIpCidr: 'fd10:0:2::2/120',
      serverMac: '02:00:00:00:00:00',
      dnsServers: ['fd00:10:96::a'],
      routerAdvert: { prefix: 'fd10:0:2::1/120', mtu: 1450 },
    });
  });

  it('IPv6 only when the pod has no IPv4 address; a link-local IPv6 address alone is not enough', () => {
    const config = masqueradeDhcpConfig(inputs({ pod: v6Pod }));
    expect(config.v4).toBeUndefined();
    expect(config.v6?.clientIpCidr).toBe('fd10:0:2::2/120');
    const linkLocalOnly = { ...v4Pod, ipv4: [], ipv6: ['fe80::1'] };
    expect(() => masqueradeDhcpConfig(inputs({ pod: linkLocalOnly }))).toThrow(
      'pod interface eth0 of interface default has no global IPv4 or IPv6 address',
    );
  });

  it('custom CIDRs move the gateway and the guest of both families', () => {
    const network = { vmNetworkCIDR: '10.11.12.0/24', vmIPv6NetworkCIDR: 'fd20:5::/64' };
    const config = masqueradeDhcpConfig(inputs({ pod: dualPod, network }));
    expect(config.v4).toMatchObject({ clientIpCidr: '10.11.12.2/24', serverIp: '10.11.12.1', router: '10.11.12.1' });
    expect(config.v6).toMatchObject({ clientIpCidr: 'fd20:5::2/64', routerAdvert: { prefix: 'fd20:5::1/64' } });
  });

  it('a CIDR with fewer than four addresses or of the wrong family is refused with its field', () => {
    const err = (network: MasqueradeDhcpInputs['network'], pod = v4Pod) => {
      try {
        masqueradeDhcpConfig(inputs({ network, pod }));
      } catch (e) {
        return e as InvalidRequestError;
      }
      throw new Error('accepted');
    };
    expect(err({ vmNetworkCIDR: '10.0.0.0/31' }).field).toBe('spec.networks[default].pod.vmNetworkCIDR');
    expect(err({ vmNetworkCIDR: 'fd00::/64' }).message).toMatch(/vmNetworkCIDR: .*expected an IPv4 network/);
    expect(err({ vmIPv6NetworkCIDR: 'fd00::/127' }, dualPod).field).toBe(
      'spec.networks[default].pod.vmIPv6NetworkCIDR',
    );
    expect(err({ vmNetworkCIDR: 42 }).message).toContain('must be a string, got 42');
  });

  it('the subdomain goes in front of the search list and becomes the domain name', () => {
    const config = masqueradeDhcpConfig(inputs({ subdomain: 'mysub' }));
    expect(config.v4?.searchDomains[0]).toBe('mysub.default.svc.cluster.local');
    expect(config.v4?.domainName).toBe('mysub.default.svc.cluster.local');
  });
});
