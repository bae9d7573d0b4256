// Phase 2 of the bridge binding, DHCP half, as KubeVirt's launcher does it (pkg/network/dhcp/bridge.go
// BridgeConfigGenerator, then StartDHCP in pkg/network/driver/common.go): the node side's phase 1 cached the
// pod interface's address, the guest's MAC, gateway and routes in vif-cache-<pod iface>.json (Go's encoding of
// cache.DHCPConfig, read by @virt-launcher/shared's decodeVifCache); the launcher adds the server's address (the
// bridge's fake 169.254.75.1<n>), the MTU of the renamed pod NIC, the pod's DNS, the subdomain and the hostname.
import { join } from 'node:path';
import { DEFAULT_LEASE_SECONDS, type DhcpServerConfig } from '@virt-launcher/contracts';
import { decodeVifCache, VIF_CACHE_MAX_BYTES, VifCacheError, type VifCacheDhcpConfig } from '@virt-launcher/shared';
import type { PodLinkFacts } from './pod-link.js';
import { readHead } from './read-head.js';
import { dhcpV4Dns, type PodDns } from './resolv-conf.js';

/** The node side left no usable DHCP cache for a bridge-bound NIC. Sync fails with the file and the field. */
export class DhcpConfigCacheError extends Error {
  constructor(
    readonly podInterface: string,
    readonly path: string,
    reason: string,
    readonly field = '',
  ) {
    super(`DHCP configuration for pod interface ${podInterface} (${path}): ${reason}`);
    this.name = 'DhcpConfigCacheError';
  }
}

export const vifCachePath = (privateDir: string, podIface: string) => join(privateDir, `vif-cache-${podIface}.json`);

/** KubeVirt's ReadDHCPInterfaceCache for the launcher ("self"): the file phase 1 wrote for `podIface`. */
export async function readVifCache(privateDir: string, podIface: string): Promise<VifCacheDhcpConfig> {
  const path = vifCachePath(privateDir, podIface);
  let text: string;
  try {
    // One byte more than the codec takes, so an oversized file is refused without being read whole.
    text = await readHead(path, VIF_CACHE_MAX_BYTES + 1);
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new DhcpConfigCacheError(podIface, path, missing ? 'missing' : (err as Error).message);
  }
  try {
    return decodeVifCache(text, path);
  } catch (err) {
    if (err instanceof VifCacheError) {
      throw new DhcpConfigCacheError(
        podIface,
        path,
        err.field ? `field ${err.field}: ${err.reason}` : err.reason,
        err.field,
      );
    }
    throw err;
  }
}

export interface BridgeDhcpInputs {
  cache: VifCacheDhcpConfig;
  /** The path the cache came from (for error messages). */
  path: string;
  podIface: string;
  /** k6t-<…>, which phase 1 made. */
  bridge: string;
  /** The pod NIC under its new name (`<name>-nic`), now a port of the bridge: the MTU comes from it. */
  bridgedNic: PodLinkFacts;
  /** 169.254.75.1<n>, n the interface's position in the VMI (KubeVirt's GetFakeBridgeIP). */
  serverIp: string;
  dns: PodDns;
  subdomain: string;
  hostname: string;
}

/** undefined for a cache with IPAMDisabled (or without an IPv4 address): the NIC gets no server, as in KubeVirt. */
export function bridgeDhcpConfig(i: BridgeDhcpInputs): DhcpServerConfig | undefined {
  const { cache } = i;
  if (cache.ipamDisabled || !cache.ipv4) return undefined;
  if (!cache.mac) {
    // Without a MAC the single-client server would answer nobody; Go writes one whenever there is an address.
    throw new DhcpConfigCacheError(i.podIface, i.path, 'has an IPv4 address but no MAC', 'MAC');
  }
  return {
    v4: {
      interfaceName: i.bridge,
      serverIp: i.serverIp,
      clientMac: cache.mac,
      clientIpCidr: `${cache.ipv4.address}/${cache.ipv4.prefixLength}`,
      router: cache.gateway ?? '',
      ...dhcpV4Dns(i.dns, i.subdomain),
      mtu: i.bridgedNic.mtu,
      hostname: i.hostname,
      routes: (cache.routes ?? []).map((r) => ({
        destination: r.destination ?? '0.0.0.0/0',
        gateway: r.gateway ?? '',
      })),
      leaseSeconds: DEFAULT_LEASE_SECONDS,
      ntpServers: [],
      tftpServerName: '',
      bootfileName: '',
      privateOptions: [],
    },
    v6: undefined,
  };
}
