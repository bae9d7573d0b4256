// The pod network a VMI gets when it names none. KubeVirt's API defaults a VMI without interfaces and networks
// (autoattachPodInterface unset or true) to one masquerade NIC "default" on the pod network, and the converter
// applies the same default (converter/src/vmi/defaults.ts) before it emits the NIC. The launcher decides which
// NIC plugs into the pod's tap0 before the converter runs, so it must see that NIC too: otherwise the domain gets
// an ethernet NIC without a target, libvirt tries to create a tap itself, and that fails in a non-root pod.
import type { VmiView } from '../../vmi.js';

export type Networking = Pick<VmiView, 'interfaces' | 'networks'>;

export const DEFAULT_POD_NETWORK_NAME = 'default';

/** `spec.domain.devices.autoattachPodInterface` from the request's JSON; only an explicit false turns it off. */
function autoattachPodInterface(raw: Buffer): boolean {
  try {
    const doc = JSON.parse(raw.toString('utf8')) as { spec?: { domain?: { devices?: Record<string, unknown> } } };
    return doc.spec?.domain?.devices?.['autoattachPodInterface'] !== false;
  } catch {
    // parseVmiRequest already refused a request that is not JSON; a view built by hand keeps the default.
    return true;
  }
}

/** The VMI's interfaces and networks, or the defaulted pod network when it names neither. */
export function defaultedNetworking(vmi: VmiView): Networking {
  if (vmi.interfaces.length > 0 || vmi.networks.length > 0 || !autoattachPodInterface(vmi.raw)) {
    return { interfaces: vmi.interfaces, networks: vmi.networks };
  }
  return {
    interfaces: [{ name: DEFAULT_POD_NETWORK_NAME, masquerade: {} }],
    networks: [{ name: DEFAULT_POD_NETWORK_NAME, pod: {} }],
  };
}
