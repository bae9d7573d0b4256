// What network phase 1 caches for a bridge-bound NIC in vif-cache-<pod iface>.json, as KubeVirt v1.9's
// virt-handler does (pkg/network/setup/netpod/discoverbridge.go, storeBridgeBindingDHCPInterfaceData): the pod
// interface's address, the guest's MAC, the gateway and the routes, nothing else. The launcher's phase 2 adds the
// interface name, the server's address, MTU and subdomain, and serves DNS and dhcpOptions itself
// (docs/bridge.md#dhcp).
import { isIPv6 } from 'node:net';
import { isGlobalUnicast, type VifCacheDhcpConfig, type VifCacheRoute } from '@virt-launcher/shared';
import { InvalidRequestError } from '../errors.js';
import type { PodInterfaceFacts, PodRoute } from '../gen/virtlauncher/netsetup/v1/netsetup.js';

/** The kernel's name of a route's destination as CIDR ("default" is 0.0.0.0/0, a host route gets /32). */
function destinationOf(r: PodRoute): string {
  if (r.destination === 'default') return '0.0.0.0/0';
  return r.destination.includes('/') ? r.destination : `${r.destination}/32`;
}

/**
 * The pod interface's IPv4 routes, in the kernel's order. `ip route` lists IPv4 before IPv6 and names both
 * default routes "default": one with an IPv6 next hop, or after any IPv6 route, is IPv6 (KubeVirt skips a route
 * whose destination or next hop is IPv6).
 */
export function ipv4RoutesOf(routes: PodRoute[]): PodRoute[] {
  const out: PodRoute[] = [];
  let seenIpv6 = false;
  for (const r of routes) {
    const dst = r.destination === 'default' ? '' : (r.destination.split('/')[0] ?? '');
    const ipv6: boolean =
      isIPv6(dst) || isIPv6(r.gateway) || (r.destination === 'default' && r.gateway === '' && seenIpv6);
    seenIpv6 ||= ipv6;
    if (!ipv6) out.push(r);
  }
  return out;
}

/** The IPv4 subnet of `address/prefix`, as the kernel names its connected route. */
function subnetOf(address: string, prefix: number): string {
  const value = address.split('.').reduce((acc, o) => (acc << 8n) | BigInt(Number(o)), 0n);
  const mask = prefix === 0 ? 0n : ((1n << 32n) - 1n) ^ ((1n << BigInt(32 - prefix)) - 1n);
  const net = value & mask;
  const octets = [24n, 16n, 8n, 0n].map((s) => String((net >> s) & 255n));
  return `${octets.join('.')}/${prefix}`;
}

/** A route's destination with its host bits cleared, as Go's net.ParseCIDR gives it. */
function subnetOfCidr(cidr: string): string {
  const [address = '', prefix = '32'] = cidr.split('/');
  return subnetOf(address, Number(prefix));
}

/**
 * No global IPv4 address on the pod interface: IPAMDisabled and nothing else. Otherwise its first global IPv4
 * address, the guest's MAC, the gateway (the next hop of the interface's first IPv4 route, even if that route is
 * on-link) and every IPv4 route but the pod subnet's own, the default one (destination undefined) included.
 * KubeVirt refuses an interface with an address and no IPv4 route at all, and so do we.
 */
export function bridgeVifCache(pod: PodInterfaceFacts, guestMac: string): VifCacheDhcpConfig {
  const empty = { name: '', mtu: 0, subdomain: '' };
  const addr = pod.ipv4Addresses.find((a) => isGlobalUnicast(a.address));
  if (!addr) return { ...empty, ipamDisabled: true };
  const linkRoutes = ipv4RoutesOf(pod.routes);
  const first = linkRoutes[0];
  if (!first) throw new InvalidRequestError(`no gateway address found in routes for ${pod.name}`);
  const local = subnetOf(addr.address, addr.prefixLength);
  const routes: VifCacheRoute[] = linkRoutes
    .filter((r) => r.destination === 'default' || subnetOfCidr(destinationOf(r)) !== local)
    .map((r) => ({
      ...(r.destination === 'default' ? {} : { destination: subnetOfCidr(destinationOf(r)) }),
      ...(r.gateway ? { gateway: r.gateway } : {}),
    }));
  return {
    ...empty,
    ipamDisabled: false,
    ipv4: { address: addr.address, prefixLength: addr.prefixLength },
    mac: guestMac,
    ...(first.gateway ? { gateway: first.gateway } : {}),
    // KubeVirt leaves the pointer nil when no route is left: `null` in the file, not `[]`.
    ...(routes.length > 0 ? { routes } : {}),
  };
}
