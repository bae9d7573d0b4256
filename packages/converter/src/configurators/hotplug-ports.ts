// Empty pcie-root-port controllers so NICs and disks can be hot-plugged later. KubeVirt's domain
// manager adds these after a first define; here they are planned up front from the same counts.
import type { Domain } from '../domain/types.js';
import type { Configurator } from './configurator.js';

export const SLOT_COUNT_ANNOTATION = 'kubevirt.io/pci-interface-slot-count';
export const ROOT_COMPLEX_ANNOTATION = 'kubevirt.io/placePCIDevicesOnRootComplex';
const MAX_INDEX = 31;
const GIB2 = 2n * 1024n * 1024n * 1024n;
const NOT_COUNTED = new Set(['pci-root', 'pcie-root', 'pcie-expander-bus']);

/** PCI devices the domain already holds (libvirt gives each its own root port on q35). */
export function pciDevicesUsed(domain: Domain): number {
  // Counting loops rather than filter(): this runs on every conversion, and the lists are short.
  const d = domain.devices;
  const pci = (a: { type: string } | undefined) => !a || a.type === 'pci';
  let used = d.watchdogs.length + (d.rng ? 1 : 0) + (d.memballoon ? 1 : 0);
  for (const i of d.interfaces) if (pci(i.address)) used++;
  for (const h of d.hostdevs) if (h.type === 'pci') used++;
  for (const c of d.controllers) if (!NOT_COUNTED.has(c.model ?? '')) used++;
  for (const disk of d.disks) if (disk.target.bus === 'virtio' && pci(disk.address)) used++;
  for (const i of d.inputs) if (i.bus === 'virtio') used++;
  return used;
}

export const hotplugPorts: Configurator = {
  name: 'hotplug-ports',
  configure(vmi, domain, ctx) {
    if (!ctx.hotplugPorts || (ctx.arch.arch !== 'amd64' && ctx.arch.arch !== 'arm64')) return;
    const machine = domain.os.type.machine ?? '';
    if (machine && !machine.includes('q35') && !machine.startsWith('virt')) return;
    const annotations = vmi.metadata.annotations ?? {};
    const nics = (vmi.spec.domain.devices.interfaces ?? []).length;
    const slotCount = Number.parseInt(annotations[SLOT_COUNT_ANNOTATION] ?? '', 10);
    let placeholders = 0;
    if (Number.isFinite(slotCount)) placeholders = Math.max(0, slotCount - nics);
    else if (nics >= 1 && annotations[ROOT_COMPLEX_ANNOTATION] !== 'true') placeholders = Math.max(0, 4 - nics);
    const [total, floor] = (domain.memoryBytes ?? 0n) > GIB2 ? [16, 6] : [8, 3];
    const used = pciDevicesUsed(domain);
    const extra = Math.max(0, Math.max(total - used, floor) - placeholders);
    // libvirt places each PCI device on a free root port when it assigns addresses, so the ports
    // that stay empty are the placeholders (NIC hot-plug) and the extra ones (disks and others).
    // Devices (and root ports) that already have an address, behind a NUMA expander bus, take none.
    let addressed = 0;
    let lastPciIndex = 0;
    for (const h of domain.devices.hostdevs) if (h.address) addressed++;
    for (const c of domain.devices.controllers) {
      if (c.address) addressed++;
      if (c.type === 'pci' && c.index > lastPciIndex) lastPciIndex = c.index;
    }
    const wanted = used - addressed + placeholders + extra;
    let index = lastPciIndex + 1;
    for (let n = 0; n < wanted && index <= MAX_INDEX; n++, index++) {
      domain.devices.controllers.push({ type: 'pci', index, model: 'pcie-root-port' });
    }
  },
};
