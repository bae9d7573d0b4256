// Each PCI host device's host NUMA node, for the converter's PCI NUMA-aware placement (KubeVirt's
// PCINUMAAwareTopology feature gate, which virt-handler sends in every sync's cluster config). KubeVirt's converter
// reads sysfs itself (`/sys/bus/pci/devices/<address>/numa_node`); here the launcher reads it and hands the number
// to the pure converter as the device's `numaNode`. Only a VMI with dedicated CPUs under the gate needs it, as
// only then does KubeVirt place devices by NUMA node. -1 (no affinity), an unreadable file or anything that is not
// a node number leaves `numaNode` out: the converter then keeps libvirt's placement for that device, or refuses
// it when placement is strict (guest NUMA passthrough), as KubeVirt does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VirtualMachineOptions } from '../../../gen/kubevirt/cmd/v1/cmd.js';
import type { VmiView } from '../../../vmi.js';
import { wantsDedicatedCpus } from '../pod-cpuset.js';
import type { HostDeviceLists } from './from-environment.js';
import type { WireHostDevice } from './wire.js';

/** Only a well-formed address becomes a path: a device plugin's variable must not name another file. */
const PCI_ADDRESS = /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/;

/** No host has more NUMA nodes than this (Linux's MAX_NUMNODES is at most 1024). */
const MAX_NODE = 1 << 10;

/** Whether this sync needs the devices' NUMA nodes: the gate is on and the VMI has dedicated CPUs. */
export function wantsPciNumaNodes(vmi: Pick<VmiView, 'raw'>, options: VirtualMachineOptions | undefined): boolean {
  return (options?.clusterConfig?.PCINUMAAwareTopologyEnabled ?? false) && wantsDedicatedCpus(vmi);
}

/** The host NUMA node of one PCI device; undefined when it has none or it cannot be read. */
export async function readPciNumaNode(pciAddress: string, sysfsRoot = '/sys'): Promise<number | undefined> {
  const address = pciAddress.toLowerCase();
  if (!PCI_ADDRESS.test(address)) return undefined;
  const text = await readFile(join(sysfsRoot, 'bus/pci/devices', address, 'numa_node'), 'utf8').catch(() => '');
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) > MAX_NODE) return undefined;
  return Number(trimmed);
}

async function withNode(device: WireHostDevice, sysfsRoot: string): Promise<WireHostDevice> {
  if (device.type !== 'pci' || device.pciAddress === '') return device;
  const numaNode = await readPciNumaNode(device.pciAddress, sysfsRoot);
  return numaNode === undefined ? device : { ...device, numaNode };
}

/** The same lists with `numaNode` set on every PCI device whose node sysfs reports. */
export async function withPciNumaNodes(lists: HostDeviceLists, sysfsRoot = '/sys'): Promise<HostDeviceLists> {
  const each = (list: WireHostDevice[]) => Promise.all(list.map((d) => withNode(d, sysfsRoot)));
  return {
    genericHostDevices: await each(lists.genericHostDevices),
    gpuHostDevices: await each(lists.gpuHostDevices),
    sriovDevices: await each(lists.sriovDevices),
  };
}
