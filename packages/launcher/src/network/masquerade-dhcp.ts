// Phase 2 of the masquerade binding, DHCP half: the launcher works the guest's lease out itself, as KubeVirt's
// does (pkg/network/dhcp/masquerade.go MasqueradeConfigGenerator.Generate, then StartDHCP in
// pkg/network/driver/common.go): name and MTU from the pod NIC, each family only when the pod NIC has a global
// address of it, gateway (network+1) and guest (network+2) from the pod network's vmNetworkCIDR /
// vmIPv6NetworkCIDR (KubeVirt's defaults otherwise: pkg/network/link/address.go), DNS and search domains from the
// pod's resolv.conf, the subdomain rule, the pod's hostname. Nothing from the node side is read.
import { DEFAULT_LEASE_SECONDS, type DhcpServerConfig } from '@virt-launcher/contracts';
import { DEFAULT_VM_CIDR, VmCidrError, hostAt, parseVmCidr, type Family } from '@virt-launcher/shared';
import { InvalidRequestError } from '../errors.js';
import { hasGlobalIpv4, hasGlobalIpv6, type PodLinkFacts } from './pod-link.js';
import { dhcpV4Dns, type PodDns } from './resolv-conf.js';

export interface MasqueradeDhcpInputs {
  /** The VMI interface's name (for error messages). */
  iface: string;
  /** k6t-<pod iface>, which phase 1 made. */
  bridge: PodLinkFacts;
  pod: PodLinkFacts;
  /** spec.networks[].pod of the VMI. */
  network: { vmNetworkCIDR?: unknown; vmIPv6NetworkCIDR?: unknown };
  dns: PodDns;
  subdomain: string;
  hostname: string;
}

interface Addressing {
  gateway: string;
  guest: string;
  prefix: number;
}

function addressing(i: MasqueradeDhcpInputs, family: Family): Addressing {
  const key = family === 4 ? 'vmNetworkCIDR' : 'vmIPv6NetworkCIDR';
  const field = `spec.networks[${i.iface}].pod.${key}`;
  const given = i.network[key];
  if (given !== undefined && typeof given !== 'string') {
    throw new InvalidRequestError(`${field} must be a string, got ${JSON.stringify(given)}`, field);
  }
  try {
    const cidr = parseVmCidr(given || DEFAULT_VM_CIDR[family], family);
    return { gateway: hostAt(cidr, 1), guest: hostAt(cidr, 2), prefix: cidr.prefix };
  } catch (err) {
    if (err instanceof VmCidrError) throw new InvalidRequestError(`${field}: ${err.message}`, field);
    throw err;
  }
}

export function masqueradeDhcpConfig(i: MasqueradeDhcpInputs): DhcpServerConfig {
  const v4 = hasGlobalIpv4(i.pod) ? addressing(i, 4) : undefined;
  const v6 = hasGlobalIpv6(i.pod) ? addressing(i, 6) : undefined;
  if (!v4 && !v6) {
    throw new InvalidRequestError(
      `pod interface ${i.pod.name} of interface ${i.iface} has no global IPv4 or IPv6 address: nothing to masquerade`,
    );
  }
  return {
    v4: v4 && {
      interfaceName: i.bridge.name,
      serverIp: v4.gateway,
      // Empty: masquerade answers whichever MAC the guest has.
      clientMac: '',
      clientIpCidr: `${v4.guest}/${v4.prefix}`,
      router: v4.gateway,
      ...dhcpV4Dns(i.dns, i.subdomain),
      mtu: i.pod.mtu,
      hostname: i.hostname,
      routes: [],
      leaseSeconds: DEFAULT_LEASE_SECONDS,
      // The VMI's dhcpOptions are laid on top by the caller (dhcp-options.ts), for both bindings alike.
      ntpServers: [],
      tftpServerName: '',
      bootfileName: '',
      privateOptions: [],
    },
    v6: v6 && {
      interfaceName: i.bridge.name,
      clientIpCidr: `${v6.guest}/${v6.prefix}`,
      serverMac: i.bridge.mac,
      dnsServers: i.dns.ipv6Nameservers,
      leaseSeconds: DEFAULT_LEASE_SECONDS,
      // DHCPv6 has no route option: the bridge's advertisements give the guest its default route (and, with the
      // managed flag, tell it to ask DHCPv6).
      routerAdvert: {
        prefix: `${v6.gateway}/${v6.prefix}`,
        routerLifetimeSeconds: 0,
        mtu: i.pod.mtu >= 1280 ? i.pod.mtu : 0,
        intervalSeconds: 0,
        dnsServers: i.dns.ipv6Nameservers,
      },
    },
  };
}
