// masqueradeRequestFor: the MasqueradeRequest that one VMI interface asks for, decided as KubeVirt's node side
// does: the pod network's vmNetworkCIDR / vmIPv6NetworkCIDR, the interface's ports and portRanges,
// istio from the VMI's sidecar annotation, and each address family exactly when the pod interface has a global
// address of it. The VMI is read structurally (roles do not import the converter), so only the fields used are typed here.
import { isGlobalUnicast } from '@virt-launcher/shared';
import { InvalidRequestError } from './errors.js';
import { portRangeSpec, validatePorts } from './ports.js';
import type { MasqueradeRequest, PodInterfaceFacts, PortSpec } from './gen/virtlauncher/netsetup/v1/netsetup.js';

/** The VMI annotation that asks for an istio sidecar; KubeVirt compares its value case-insensitively to "true". */
export const ISTIO_INJECT_ANNOTATION = 'sidecar.istio.io/inject';

export interface VmiInterfaceLike {
  name: string;
  masquerade?: object;
  ports?: Array<{ name?: string; protocol?: string; port: number }>;
  /** KubeVirt's PortRangesSpec: TCP or UDP, start..end inclusive. */
  portRanges?: Array<{ protocol: string; start: number; end: number }>;
}

export interface VmiNetworkLike {
  name: string;
  pod?: { vmNetworkCIDR?: string; vmIPv6NetworkCIDR?: string };
  multus?: object;
}

export interface VmiLike {
  metadata?: { annotations?: Record<string, string> };
  spec?: {
    subdomain?: string;
    networks?: VmiNetworkLike[];
    domain?: { devices?: { interfaces?: VmiInterfaceLike[] } };
  };
}

/** What the VMI does not say: the tap's owner and queues, and the migration transport. */
export interface NodeSideChoices {
  tapUid?: number;
  tapGid?: number;
  queues?: number;
  legacyMigrationPorts?: boolean;
}

export function istioInjected(vmi: VmiLike): boolean {
  return (vmi.metadata?.annotations?.[ISTIO_INJECT_ANNOTATION] ?? '').toLowerCase() === 'true';
}

/** The declared ports, then the port ranges: the order KubeVirt writes their rules in. */
function portsOf(iface: VmiInterfaceLike): PortSpec[] {
  return validatePorts([
    ...(iface.ports ?? []).map((p) => ({ protocol: (p.protocol || 'TCP').toLowerCase(), port: p.port, portEnd: 0 })),
    ...(iface.portRanges ?? []).map(portRangeSpec),
  ]);
}

/** The interface named `ifaceName` must exist, use masquerade, and sit on the pod network. */
function masqueradeOnPodNetwork(vmi: VmiLike, ifaceName: string) {
  const iface = vmi.spec?.domain?.devices?.interfaces?.find((i) => i.name === ifaceName);
  if (!iface) throw new InvalidRequestError(`spec.domain.devices.interfaces has no interface "${ifaceName}"`);
  if (!iface.masquerade) throw new InvalidRequestError(`interface "${ifaceName}" does not use the masquerade binding`);
  const network = vmi.spec?.networks?.find((n) => n.name === ifaceName);
  if (!network?.pod) {
    throw new InvalidRequestError(`spec.networks["${ifaceName}"] is not the pod network: masquerade needs it`);
  }
  return { iface, network };
}

export function masqueradeRequestFor(
  vmi: VmiLike,
  ifaceName: string,
  pod: PodInterfaceFacts,
  choices: NodeSideChoices = {},
): MasqueradeRequest {
  const { iface, network } = masqueradeOnPodNetwork(vmi, ifaceName);
  return {
    pod,
    ports: portsOf(iface),
    ipv6: pod.ipv6Addresses.some((a) => isGlobalUnicast(a.address)),
    queues: choices.queues ?? 0,
    // KubeVirt's non-root launcher runs QEMU as 107:107.
    tapUid: choices.tapUid ?? 107,
    tapGid: choices.tapGid ?? 107,
    vmNetworkCidr: network.pod?.vmNetworkCIDR ?? '',
    vmIpv6NetworkCidr: network.pod?.vmIPv6NetworkCIDR ?? '',
    tapName: '',
    legacyMigrationPorts: choices.legacyMigrationPorts ?? false,
    istio: istioInjected(vmi),
  };
}
