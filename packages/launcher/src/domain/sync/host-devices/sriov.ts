// SR-IOV NICs: Multus records which VF each network got, and virt-controller passes that to the pod as the
// `kubevirt.io/network-info` annotation, mounted by the downward API at /etc/podinfo/network-info:
//   {"interfaces":[{"network":"sriov-a","deviceInfo":{"type":"pci","pci":{"pci-address":"0000:3b:02.1"}}}]}
// An SR-IOV interface takes its network's address, as KubeVirt's launcher does, but only once Multus reported it
// (the interface's status lists the `multus-status` source); one not yet reported gets no device now.
import { isPciAddress } from './addresses.js';
import { HostDeviceError } from './errors.js';
import { hostDevice, type WireHostDevice } from './wire.js';

/** KubeVirt's downward-API path of the network-info annotation, under the pod's root. */
export const NETWORK_INFO_PATH = '/etc/podinfo/network-info';

export interface InterfaceRequest {
  name?: unknown;
  sriov?: unknown;
  pciAddress?: unknown;
  bootOrder?: unknown;
}

export interface InterfaceStatus {
  name?: unknown;
  infoSource?: unknown;
}

/** The interfaces that need a VF now, with their index in `spec.domain.devices.interfaces`. */
export function sriovInterfaces(
  interfaces: InterfaceRequest[],
  statuses: InterfaceStatus[],
): Array<{ iface: InterfaceRequest; index: number }> {
  const reported = new Set(
    statuses
      .filter((s) => typeof s.infoSource === 'string' && s.infoSource.split(', ').includes('multus-status'))
      .map((s) => s.name),
  );
  return interfaces
    .map((iface, index) => ({ iface, index }))
    .filter(({ iface }) => iface.sriov !== undefined && iface.sriov !== null && reported.has(iface.name));
}

/** network name -> VF PCI address, from the network-info file's text. */
export function parseNetworkInfo(text: string, path = NETWORK_INFO_PATH): Map<string, string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new HostDeviceError('spec.domain.devices.interfaces', path, text.slice(0, 200), 'is not JSON');
  }
  const interfaces = (doc as { interfaces?: unknown })?.interfaces;
  const map = new Map<string, string>();
  if (!Array.isArray(interfaces)) return map;
  for (const entry of interfaces as Array<Record<string, unknown> | null>) {
    const network = entry?.network;
    const pci = (entry?.deviceInfo as { pci?: Record<string, unknown> } | undefined)?.pci?.['pci-address'];
    if (typeof network === 'string' && typeof pci === 'string' && pci !== '') map.set(network, pci);
  }
  return map;
}

/**
 * One `pci` host device per SR-IOV interface needing a VF, with the interface's guest PCI address and boot order.
 * `networkInfo` is the file's text, or undefined when it could not be read.
 */
export function sriovDevices(
  wanted: ReturnType<typeof sriovInterfaces>,
  networkInfo: string | undefined,
  path = NETWORK_INFO_PATH,
): WireHostDevice[] {
  if (wanted.length === 0) return [];
  const first = `spec.domain.devices.interfaces[${wanted[0]?.index ?? 0}]`;
  if (networkInfo === undefined || networkInfo === '') {
    throw new HostDeviceError(first, path, '', 'SR-IOV needs the network-info file, which is missing or empty');
  }
  const byNetwork = parseNetworkInfo(networkInfo, path);
  if (byNetwork.size === 0) {
    throw new HostDeviceError(first, path, '', 'the network-info file maps no SR-IOV network to a PCI address');
  }
  return wanted.map(({ iface, index }) => {
    const field = `spec.domain.devices.interfaces[${index}]`;
    const name = String(iface.name);
    const address = byNetwork.get(name);
    if (address === undefined) {
      throw new HostDeviceError(field, path, '', `no PCI address for SR-IOV network ${JSON.stringify(name)}`);
    }
    if (!isPciAddress(address)) {
      throw new HostDeviceError(field, path, address, 'the VF address is not a PCI address (0000:3b:02.1)');
    }
    // Each network's VF is used once (the interface names are unique, so this only guards a hostile file).
    byNetwork.delete(name);
    return sriovHostDevice(iface, field, address);
  });
}

/** The VF's host device for an SR-IOV interface, with its guest PCI address and boot order (both checked). */
export function sriovHostDevice(iface: InterfaceRequest, field: string, address: string): WireHostDevice {
  const guest = iface.pciAddress;
  if (guest !== undefined && (typeof guest !== 'string' || !isPciAddress(guest))) {
    throw new HostDeviceError(`${field}.pciAddress`, 'spec', String(guest), 'is not a PCI address');
  }
  const boot = iface.bootOrder;
  if (boot !== undefined && (typeof boot !== 'number' || !Number.isInteger(boot) || boot < 1 || boot > 0xffff)) {
    throw new HostDeviceError(`${field}.bootOrder`, 'spec', String(boot), 'is not a boot order (1-65535)');
  }
  return hostDevice({
    type: 'pci',
    alias: `sriov-${String(iface.name)}`,
    pciAddress: address,
    guestPciAddress: typeof guest === 'string' ? guest : '',
    bootOrder: typeof boot === 'number' ? boot : 0,
  });
}
