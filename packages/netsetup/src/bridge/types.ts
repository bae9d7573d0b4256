// The bridge binding's request and plan. Plain TypeScript types (not proto messages): only netsetup's own CLI
// and the pod tools exchange them; what the launcher reads is the vif-cache file KubeVirt's virt-handler writes
// (VifCacheDhcpConfig of @virt-launcher/shared, encoded as Go encodes cache.DHCPConfig).
import type { VifCacheDhcpConfig } from '@virt-launcher/shared';
import type { BridgePlan, PodInterfaceFacts, TapPlan } from '../gen/virtlauncher/netsetup/v1/netsetup.js';

export interface BridgeBindingRequest {
  /** The pod interface as discovered (discoverPodInterface) before anything was changed. */
  pod: PodInterfaceFacts;
  /** Position of the NIC in the VMI's spec.domain.devices.interfaces (names the bridge's fake address). */
  interfaceIndex: number;
  /** A Multus (secondary) network: its tap is `tap<hash11>`, the pod network's is tap0. */
  secondary: boolean;
  /** The VMI interface's macAddress; empty: the MAC in the VMI's status, else the pod interface's. */
  macAddress: string;
  /** The MAC status.interfaces reports for this interface (kept across a restart); empty when none. */
  statusMac: string;
  tapUid: number;
  tapGid: number;
  queues: number;
}

export interface BridgeBindingPlan {
  /** The pod interface's name; free after the apply (the interface is the bridge port `nic`). */
  podInterface: string;
  /** The pod interface's new name, a port of the bridge (`eth0-nic`). */
  nic: string;
  /** MAC of the bridge and of its port `nic` (bridgePortMacFor). */
  nicMac: string;
  /** The MAC the guest's NIC uses (spec, else status, else the pod's), and the only client DHCP answers. */
  guestMac: string;
  /** The pod interface's original MAC (the guest's, unless the VMI names one). */
  podMac: string;
  mtu: number;
  bridge: BridgePlan;
  tap: TapPlan;
  /** The pod's global addresses (CIDR form), taken off the pod interface; a teardown puts them back. */
  podAddresses: string[];
  /** The pod's routes before the move, kept so a teardown can put them back. */
  podRoutes: Array<{ destination: string; gateway: string }>;
  /** net.ipv4.conf.all.arp_ignore=1 when the guest has an IPv4 address: only the guest answers ARP for it. */
  arpIgnore: boolean;
  /**
   * What phase 1 caches for the launcher (vif-cache-<pod iface>.json): address, MAC, gateway, routes, or only
   * ipamDisabled when the pod interface had no IPv4. DNS, MTU, subdomain and dhcpOptions are phase 2's.
   */
  dhcpCache: VifCacheDhcpConfig;
}
