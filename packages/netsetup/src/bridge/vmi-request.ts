// bridgeRequestFor: what one bridge-bound VMI interface asks of the node side, read as KubeVirt reads it: the
// pod interface is eth0 for the pod network (or a Multus default network) and `pod<hash11>` for a secondary
// Multus network; the NIC's position names the bridge's fake address; the guest's MAC is the spec's, else the
// status's. DHCP options, DNS and subdomain are the launcher's business (phase 2), not read here.
import { InvalidRequestError } from '../errors.js';
import type { NodeSideChoices } from '../vmi-request.js';
import type { PodInterfaceFacts } from '../gen/virtlauncher/netsetup/v1/netsetup.js';
import { hashedPodIfaceName, PRIMARY_POD_IFACE } from './names.js';
import type { BridgeBindingRequest } from './types.js';

export interface BridgeVmiLike {
  spec?: {
    networks?: Array<{ name: string; pod?: object; multus?: { networkName?: string; default?: boolean } }>;
    domain?: {
      devices?: {
        interfaces?: Array<{ name: string; bridge?: object; macAddress?: string }>;
      };
    };
  };
  status?: { interfaces?: Array<{ name?: string; mac?: string }> };
}

/** A Multus network that is not the pod's default one: it has its own pod interface. */
function isSecondary(network: { pod?: object; multus?: { default?: boolean } }): boolean {
  return !network.pod && !!network.multus && !network.multus.default;
}

/** The pod interface KubeVirt v1.9 expects for the VMI network `networkName` (hashed scheme). */
export function podInterfaceNameFor(vmi: BridgeVmiLike, networkName: string): string {
  const network = vmi.spec?.networks?.find((n) => n.name === networkName);
  if (!network) throw new InvalidRequestError(`spec.networks has no network "${networkName}"`);
  return isSecondary(network) ? hashedPodIfaceName(networkName) : PRIMARY_POD_IFACE;
}

export function bridgeRequestFor(
  vmi: BridgeVmiLike,
  ifaceName: string,
  pod: PodInterfaceFacts,
  choices: NodeSideChoices = {},
): BridgeBindingRequest {
  const interfaces = vmi.spec?.domain?.devices?.interfaces ?? [];
  const index = interfaces.findIndex((i) => i.name === ifaceName);
  const iface = interfaces[index];
  if (!iface) throw new InvalidRequestError(`spec.domain.devices.interfaces has no interface "${ifaceName}"`);
  if (!iface.bridge) throw new InvalidRequestError(`interface "${ifaceName}" does not use the bridge binding`);
  const network = vmi.spec?.networks?.find((n) => n.name === ifaceName);
  if (!network) throw new InvalidRequestError(`spec.networks has no network "${ifaceName}"`);
  return {
    pod,
    interfaceIndex: index,
    secondary: isSecondary(network),
    macAddress: iface.macAddress ?? '',
    statusMac: vmi.status?.interfaces?.find((s) => s.name === ifaceName)?.mac ?? '',
    tapUid: choices.tapUid ?? 107,
    tapGid: choices.tapGid ?? 107,
    queues: choices.queues ?? 0,
  };
}
