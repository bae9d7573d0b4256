// The DHCP configuration of a bridge-bound NIC: the pod interface's own IPv4 address, gateway, routes, MTU and
// the pod's DNS, handed to one client (the guest's MAC) from the bridge's fake address (docs/bridge.md#dhcp).
import { DEFAULT_LEASE_SECONDS, type DhcpServerConfig } from '@virt-launcher/contracts';
import { isIPv4 } from 'node:net';
import { isGlobalUnicast } from '@virt-launcher/shared';
import { InvalidRequestError } from '../errors.js';
import { guestDns } from '../resolvconf.js';
import type { DhcpOptions, PodInterfaceFacts, PodRoute } from '../gen/virtlauncher/netsetup/v1/netsetup.js';

export interface BridgeDhcpInputs {
  pod: PodInterfaceFacts;
  bridge: string;
  serverIp: string;
  guestMac: string;
  subdomain: string;
  options: DhcpOptions | undefined;
}

function isV4Route(r: PodRoute): boolean {
  return r.destination === 'default' || isIPv4(r.destination.split('/')[0] ?? '') || isIPv4(r.gateway);
}

function destinationOf(r: PodRoute): string {
  if (r.destination === 'default') return '0.0.0.0/0';
  return r.destination.includes('/') ? r.destination : `${r.destination}/32`;
}

/** The pod's IPv4 subnet of `address/prefix`, as the kernel names its connected route. */
function subnetOf(address: string, prefix: number): string {
  const value = address.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
  const mask = prefix === 0 ? 0n : ((1n << 32n) - 1n) ^ ((1n << BigInt(32 - prefix)) - 1n);
  const net = value & mask;
  const octets = [24n, 16n, 8n, 0n].map((s) => String((net >> s) & 255n));
  return `${octets.join('.')}/${prefix}`;
}

function checkedOptions(options: DhcpOptions | undefined): DhcpOptions {
  const o = options ?? { ntpServers: [], tftpServerName: '', bootfileName: '', privateOptions: [] };
  for (const ntp of o.ntpServers) {
    if (!isIPv4(ntp)) throw new InvalidRequestError(`Could not parse NTP server as IPv4 address: ${ntp}`);
  }
  return { ...o, privateOptions: o.privateOptions.filter((p) => p.code >= 224 && p.code <= 254) };
}

/**
 * No global IPv4 address on the pod interface: no IPAM, no DHCP (an empty config, as KubeVirt caches one with
 * IPAMDisabled). Otherwise the first global IPv4 address; the gateway is the first IPv4 next hop, and every
 * route but the pod subnet's own goes out as a classless static route (on-link when it has no next hop; the
 * default one included, because a client that gets option 121 ignores option 3).
 */
export function bridgeDhcpConfig(i: BridgeDhcpInputs): DhcpServerConfig {
  const addr = i.pod.ipv4Addresses.find((a) => isGlobalUnicast(a.address));
  if (!addr) return { v4: undefined, v6: undefined };
  const routes = i.pod.routes.filter(isV4Route);
  const local = subnetOf(addr.address, addr.prefixLength);
  const gateway = routes.find((r) => r.gateway !== '')?.gateway ?? '';
  const dns = guestDns(i.pod.resolvConf, i.subdomain);
  const options = checkedOptions(i.options);
  return {
    v4: {
      interfaceName: i.bridge,
      serverIp: i.serverIp,
      clientMac: i.guestMac,
      clientIpCidr: `${addr.address}/${addr.prefixLength}`,
      router: gateway,
      dnsServers: dns.ipv4Servers,
      searchDomains: dns.searchDomains,
      domainName: dns.domainName,
      mtu: i.pod.mtu,
      hostname: i.pod.hostname,
      routes: routes
        .filter((r) => destinationOf(r) !== local)
        .map((r) => ({ destination: destinationOf(r), gateway: r.gateway })),
      leaseSeconds: DEFAULT_LEASE_SECONDS,
      ntpServers: options.ntpServers,
      tftpServerName: options.tftpServerName,
      bootfileName: options.bootfileName,
      privateOptions: options.privateOptions,
    },
    v6: undefined,
  };
}
