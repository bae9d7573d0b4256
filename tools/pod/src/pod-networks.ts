// The pod's secondary interfaces and the bridge binding, as Multus and virt-handler would leave them: one veth
// pair per secondary (Multus, non-default) network of the VMI — the pod end named as KubeVirt names it
// (`pod<hash11>`), the node end `sec<N>` in the node namespace — then netsetup's bridge binding for every NIC
// that asks for it, with its DHCP configuration cached where the launcher's DHCP server reads it.
import { execa } from 'execa';
import {
  applyBridgePlan,
  bridgeRequestFor,
  discoverPodInterface,
  planBridge,
  podInterfaceNameFor,
  writeBridgeDhcpCache,
  type BridgeVmiLike,
} from '@virt-launcher/netsetup';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import type { PodNetwork } from './namespaces.js';
import { POD_UID } from './non-root.js';
import type { PodSpec } from './run-phases.js';
import type { RunState } from './run-state.js';

/**
 * VMI annotation: comma-separated secondary networks whose pod interface gets no address (a network without
 * IPAM: the guest's NIC only has a link). Every other secondary network gets 198.18.<N>.10/24 (RFC 2544's
 * benchmarking range, so it cannot be mistaken for a real network), its node end 198.18.<N>.1/24.
 */
export const NO_IPAM_ANNOTATION = 'vlt.virt-pod/no-ipam';

export interface SecondaryNetwork {
  network: string;
  podIface: string;
  nodeIface: string;
  /** Empty without IPAM. */
  podIp: string;
  nodeIp: string;
}

const ip = (...args: string[]) => execa('ip', args);

function secondaryNetworks(vmi: VirtualMachineInstance) {
  return (vmi.spec?.networks ?? []).filter((n) => n.multus && !n.multus.default && !n.pod);
}

/** What the VMI's secondary networks need: one veth each, with or without an address. */
export function secondaryNetworkPlan(vmi: VirtualMachineInstance): SecondaryNetwork[] {
  const noIpam = new Set((vmi.metadata.annotations?.[NO_IPAM_ANNOTATION] ?? '').split(',').map((s) => s.trim()));
  return secondaryNetworks(vmi).map((n, i) => {
    const ipam = !noIpam.has(n.name);
    return {
      network: n.name,
      podIface: podInterfaceNameFor(vmi as BridgeVmiLike, n.name),
      nodeIface: `sec${i + 1}`,
      podIp: ipam ? `198.18.${i + 1}.10` : '',
      nodeIp: ipam ? `198.18.${i + 1}.1` : '',
    };
  });
}

/** Multus' part: the extra veth pairs (removed with the namespaces). */
export async function addSecondaryInterfaces(s: RunState, spec: PodSpec, net: PodNetwork): Promise<SecondaryNetwork[]> {
  const plan = secondaryNetworkPlan(spec.vmi);
  if (plan.length === 0) return plan;
  await s.phase('secondary networks (a veth to the node per Multus network)', async () => {
    for (const n of plan) {
      await ip(
        '-n',
        net.podNs,
        'link',
        'add',
        n.podIface,
        'type',
        'veth',
        'peer',
        'name',
        n.nodeIface,
        'netns',
        net.nodeNs,
      );
      if (n.podIp) await ip('-n', net.podNs, 'addr', 'add', `${n.podIp}/24`, 'dev', n.podIface);
      if (n.nodeIp) await ip('-n', net.nodeNs, 'addr', 'add', `${n.nodeIp}/24`, 'dev', n.nodeIface);
      await ip('-n', net.podNs, 'link', 'set', n.podIface, 'up');
      await ip('-n', net.nodeNs, 'link', 'set', n.nodeIface, 'up');
    }
  });
  for (const n of plan) {
    s.print(`  ${n.network}: ${n.podIface} <-> node ${n.nodeIface}${n.podIp ? ` ${n.podIp}/24` : ' (no IPAM)'}`);
  }
  return plan;
}

/** The bridge-bound NICs of the VMI, in its interface order. */
export function bridgeInterfaces(vmi: VirtualMachineInstance): string[] {
  return (vmi.spec?.domain?.devices?.interfaces ?? [])
    .filter((i) => i.bridge && i.state !== 'absent')
    .map((i) => i.name);
}

/** True when the pod network's NIC uses the bridge binding (then there is no masquerade to set up). */
export function podNetworkBridged(vmi: VirtualMachineInstance): boolean {
  const podNet = (vmi.spec?.networks ?? []).find((n) => n.pod || n.multus?.default);
  return !!podNet && bridgeInterfaces(vmi).includes(podNet.name);
}

/** virt-handler's phase 1 for every bridge-bound NIC: plan, apply, and the DHCP cache for the launcher. */
export async function setUpBridges(s: RunState, spec: PodSpec, net: PodNetwork): Promise<void> {
  const names = bridgeInterfaces(spec.vmi);
  if (names.length === 0) return;
  const owner = s.args.nonRoot ? { tapUid: POD_UID, tapGid: POD_UID } : { tapUid: 0, tapGid: 0 };
  const privateDir = spec.layout.hostPath('/var/run/kubevirt-private');
  const lines = await s.phase('bridge binding (netsetup: port, bridge, tap, DHCP cache)', async () => {
    const out: string[] = [];
    for (const name of names) {
      const vmi = spec.vmi as BridgeVmiLike;
      const podIface = podInterfaceNameFor(vmi, name);
      const facts = await discoverPodInterface(net.podNs, podIface);
      const plan = planBridge(bridgeRequestFor(vmi, name, facts, owner));
      await applyBridgePlan(plan, net.podNs);
      // pkg/network/setup/netpod/discoverbridge.go: the file the launcher's phase 2 serves the lease from.
      await writeBridgeDhcpCache(privateDir, plan);
      const c = plan.dhcpCache;
      out.push(
        `  ${name}: ${plan.nic} + ${plan.tap.name} on ${plan.bridge.name}, ` +
          (c.ipv4 ? `guest ${c.ipv4.address}/${c.ipv4.prefixLength} (${c.mac}) by DHCP` : 'no IPAM: link only'),
      );
    }
    return out;
  });
  for (const line of lines) s.print(line);
}
