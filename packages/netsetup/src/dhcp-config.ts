// The configuration the in-pod DHCP servers give the guest for a masquerade interface. Its type is the one
// DhcpServerConfig of @virt-launcher/contracts, which @virt-launcher/dhcp serves as it is.
import { isIPv4 } from 'node:net';
import { DEFAULT_LEASE_SECONDS, type DhcpServerConfig } from '@virt-launcher/contracts';
import { InvalidRequestError } from './errors.js';
import { guestDns } from './resolvconf.js';
import type { DhcpOptions, GuestAddressing, PodInterfaceFacts } from './gen/virtlauncher/netsetup/v1/netsetup.js';

export interface DhcpInputs {
  pod: PodInterfaceFacts;
  bridge: string;
  bridgeMac: string;
  ipv4: GuestAddressing | undefined;
  ipv6: GuestAddressing | undefined;
  subdomain: string;
  options: DhcpOptions | undefined;
}

function checkedOptions(options: DhcpOptions | undefined): DhcpOptions {
  const o = options ?? { ntpServers: [], tftpServerName: '', bootfileName: '', privateOptions: [] };
  for (const ntp of o.ntpServers) {
    // KubeVirt's server refuses to start on these; failing at plan time keeps the error next to its cause.
    if (!isIPv4(ntp)) throw new InvalidRequestError(`Could not parse NTP server as IPv4 address: ${ntp}`);
  }
  // Codes outside the site-specific range are dropped silently, as KubeVirt does.
  return { ...o, privateOptions: o.privateOptions.filter((p) => p.code >= 224 && p.code <= 254) };
}

export function guestDhcpConfig(i: DhcpInputs): DhcpServerConfig {
  const dns = guestDns(i.pod.resolvConf, i.subdomain);
  const options = checkedOptions(i.options);
  return {
    v4: i.ipv4 && {
      interfaceName: i.bridge,
      serverIp: i.ipv4.gatewayIp,
      // Empty: masquerade answers any client MAC.
      clientMac: '',
      clientIpCidr: `${i.ipv4.guestIp}/${i.ipv4.prefixLength}`,
      router: i.ipv4.gatewayIp,
      dnsServers: dns.ipv4Servers,
      searchDomains: dns.searchDomains,
      domainName: dns.domainName,
      mtu: i.pod.mtu,
      hostname: i.pod.hostname,
      routes: [],
      // Written out rather than 0, so the cached config says what the guest gets.
      leaseSeconds: DEFAULT_LEASE_SECONDS,
      ntpServers: options.ntpServers,
      tftpServerName: options.tftpServerName,
      bootfileName: options.bootfileName,
      privateOptions: options.privateOptions,
    },
    v6: i.ipv6 && {
      interfaceName: i.bridge,
      clientIpCidr: `${i.ipv6.guestIp}/${i.ipv6.prefixLength}`,
      serverMac: i.bridgeMac,
      dnsServers: dns.ipv6Servers,
      leaseSeconds: DEFAULT_LEASE_SECONDS,
      // The address comes from DHCPv6, which has no route option: the advertisement from the bridge gives the
      // guest its default route (and says, with the managed flag, to ask DHCPv6).
      routerAdvert: {
        prefix: `${i.ipv6.gatewayIp}/${i.ipv6.prefixLength}`,
        routerLifetimeSeconds: 0,
        mtu: i.pod.mtu >= 1280 ? i.pod.mtu : 0,
        intervalSeconds: 0,
        dnsServers: dns.ipv6Servers,
      },
    },
  };
}
