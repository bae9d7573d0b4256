// Which NICs get a DHCP server from the launcher, and on which bridge: a masquerade NIC on the pod network
// (k6t-eth0), and every bridge-bound NIC whose node side cached an address for it — on the pod network (eth0) or
// on a secondary Multus network, whose pod interface KubeVirt names `pod<hash11>` (bridge `k6t-<hash11>`).
import { secondaryPodIfaceName } from '@virt-launcher/shared';
import { defaultedNetworking } from '../domain/sync/default-pod-network.js';
import type { VmiView } from '../vmi.js';

export interface DhcpTarget {
  /** The VMI interface's name. */
  iface: string;
  /** The pod interface the node side set up (names the cache and the started marker). */
  podIface: string;
  bridge: string;
  binding: 'masquerade' | 'bridge';
}

export function dhcpTargets(vmi: VmiView): DhcpTarget[] {
  const out: DhcpTarget[] = [];
  // A VMI that names no NIC gets the default masquerade NIC on the pod network, as the converter gives it.
  const { interfaces, networks } = defaultedNetworking(vmi);
  for (const iface of interfaces) {
    const network = networks.find((n) => n.name === iface.name);
    if (!network) continue;
    const secondary = !network.pod && !!network.multus && !(network.multus as { default?: boolean }).default;
    const podIface = secondary ? secondaryPodIfaceName(network.name) : 'eth0';
    const bridge = `k6t-${podIface.replace(/^pod/, '')}`;
    if (iface.masquerade && network.pod) out.push({ iface: iface.name, podIface, bridge, binding: 'masquerade' });
    else if (iface.bridge) out.push({ iface: iface.name, podIface, bridge, binding: 'bridge' });
  }
  return out;
}

/**
 * The MAC the node side handed to the guest of each bridge NIC (the client its DHCP config answers), by interface
 * name: the domain's NIC must carry it, or the guest would ask for a lease no one gives it. Read from phase 1's
 * vif-cache (its MAC field) only when the VMI names no macAddress; a NIC without a cache or a MAC is left out.
 */
export async function bridgeGuestMacs(privateDir: string, vmi: VmiView): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of dhcpTargets(vmi)) {
    if (t.binding !== 'bridge' || vmi.interfaces.find((i) => i.name === t.iface)?.macAddress) continue;
    // A missing or broken cache fails later, in the DHCP start, with the cache's path and field in the error.
    const { readVifCache } = await import('./bridge-dhcp.js');
    const mac = (await readVifCache(privateDir, t.podIface).catch(() => undefined))?.mac;
    if (mac) out[t.iface] = mac;
  }
  return out;
}
