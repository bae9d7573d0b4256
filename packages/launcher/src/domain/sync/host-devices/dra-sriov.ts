// SR-IOV NICs whose network is a DRA resource claim (`spec.networks[].resourceClaim`) instead of a Multus network:
// the VF is the PCI address (`resource.kubernetes.io/pciBusID`) in the claim request's metadata, as KubeVirt's
// launcher resolves it; the host device is aliased `sriov-<name>` with the interface's guest address and boot
// order, like a Multus VF, and follows the Multus VFs in the list.
import { claimedPciAddress, claimRequestNames, type ResourceClaimRef } from './dra-claims.js';
import { sriovHostDevice, type InterfaceRequest } from './sriov.js';
import type { WireHostDevice } from './wire.js';

/** One `spec.networks[]` entry as the VMI JSON spells it (only the DRA source is read here). */
export interface NetworkRequest {
  name?: unknown;
  resourceClaim?: { claimName?: unknown; requestName?: unknown } | null;
}

export async function sriovFromClaims(
  spec: { interfaces: InterfaceRequest[]; networks: NetworkRequest[]; resourceClaims: ResourceClaimRef[] },
  base: string,
): Promise<WireHostDevice[]> {
  const devices: WireHostDevice[] = [];
  for (const [i, iface] of spec.interfaces.entries()) {
    if (iface.sriov === undefined || iface.sriov === null) continue;
    const n = spec.networks.findIndex((net) => net.name === iface.name);
    const claim = spec.networks[n]?.resourceClaim;
    if (claim === undefined || claim === null) continue;
    const claimField = `spec.networks[${n}].resourceClaim`;
    const why = 'a DRA network needs both claimName and requestName';
    const { claimName, requestName } = claimRequestNames(claim, claimField, why);
    const address = await claimedPciAddress(base, spec.resourceClaims, claimName, requestName, claimField);
    devices.push(sriovHostDevice(iface, `spec.domain.devices.interfaces[${i}]`, address));
  }
  return devices;
}
