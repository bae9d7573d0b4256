// The bridge binding's request and plan. Plain TypeScript types (not proto messages): only netsetup's own CLI
// and the pod tools exchange them; what the launcher reads is the DhcpServerConfig of @virt-launcher/contracts.
import type { DhcpServerConfig } from '@virt-launcher/contracts';
import type { BridgePlan, DhcpOptions, PodInterfaceFacts, TapPlan } from '../gen/virtlauncher/netsetup/v1/netsetup.js';

export interface BridgeBindingRequest {
  /** The pod interface as discovered (discoverPodInterface) before anything was changed. */
  pod: PodInterfaceFacts;
  /** Position of the NIC in the VMI's spec.domain.devices.interfaces (names the bridge's fake address). */
  interfaceIndex: number;
  /** A Multus (secondary) network: its tap is `tap<hash11>`, the pod network's is tap0. */
  secondary: boolean;
  /** The VMI interface's macAddress; empty: the guest takes the pod interface's MAC. */
  macAddress: string;
  tapUid: number;
  tapGid: number;
  queues: number;
  subdomain: string;
  dhcpOptions: DhcpOptions | undefined;
}

export interface BridgeBindingPlan {
  /** The pod interface's name; free after the apply (the interface is the bridge port `nic`). */
  podInterface: string;
  /** The pod interface's new name, a port of the bridge (`eth0-nic`). */
  nic: string;
  /** MAC of the bridge and of its port `nic` (bridgePortMacFor). */
  nicMac: string;
  /** The MAC the guest's NIC uses, and the only client the DHCP server answers. */
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
  /** What the launcher's DHCP server serves; no v4 and no v6 when the pod interface had no IPv4 (no IPAM). */
  dhcp: DhcpServerConfig;
}
