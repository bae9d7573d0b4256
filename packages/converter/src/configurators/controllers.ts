// Controllers: USB (qemu-xhci or explicitly none), SCSI for hot-plug (with its IOThread), PCI hole,
// virtio-serial.
import type { Resolved } from '../context/resolve.js';
import type { Controller } from '../domain/types.js';
import type { Disk, VirtualMachineInstance } from '../vmi/types.js';
import type { Configurator } from './configurator.js';

export const DISABLE_PCI_HOLE64_ANNOTATION = 'kubevirt.io/disablePCIHole64';

/** Of the disks, only a disk on the usb bus turns the controller on (a USB CD-ROM or LUN does not, as in KubeVirt). */
function usbNeeded(vmi: VirtualMachineInstance, ctx: Resolved): boolean {
  if (ctx.arch.arch === 'arm64') return true;
  if (ctx.arch.arch === 's390x') return false;
  const devices = vmi.spec.domain.devices;
  return (
    (devices.inputs ?? []).some((i) => !i.bus || i.bus === 'usb') ||
    (devices.disks ?? []).some((d) => d.disk?.bus === 'usb') ||
    devices.clientPassthrough !== undefined ||
    ctx.raw.genericHostDevices.some((d) => d.type === 'usb')
  );
}

function scsiNeeded(vmi: VirtualMachineInstance): boolean {
  const devices = vmi.spec.domain.devices;
  return !devices.disableHotplug || (devices.disks ?? []).some((d) => (d.disk ?? d.lun ?? d.cdrom)?.bus === 'scsi');
}

function busOf(disk: Disk): string | undefined {
  return (disk.disk ?? disk.lun ?? disk.cdrom)?.bus;
}

/**
 * A SCSI disk that asked for a dedicated IOThread is served through its controller: the controller
 * takes the shared-pool thread that comes after the virtio disks' round-robin (KubeVirt's choice), and
 * one queue per vCPU. Not with the supplemental pool, which has no shared round-robin.
 */
function scsiIoThread(vmi: VirtualMachineInstance, ctx: Resolved): number | undefined {
  const plan = ctx.ioThreads;
  const disks = vmi.spec.domain.devices.disks ?? [];
  if (plan.shared === 0 || plan.supplementalPool) return undefined;
  if (!disks.some((d) => busOf(d) === 'scsi' && d.dedicatedIOThread === true)) return undefined;
  let thread = 1;
  for (const d of disks) if (busOf(d) === 'virtio' && d.dedicatedIOThread !== true) thread = (thread % plan.shared) + 1;
  return thread;
}

export const controllers: Configurator = {
  name: 'controllers',
  configure(vmi, domain, ctx) {
    const list: Controller[] = domain.devices.controllers;
    list.push({ type: 'usb', index: 0, model: usbNeeded(vmi, ctx) ? 'qemu-xhci' : 'none' });
    if (scsiNeeded(vmi)) {
      const scsi: Controller = {
        type: 'scsi',
        index: 0,
        model: ctx.arch.arch === 's390x' ? 'virtio-scsi' : ctx.virtioModel,
      };
      if (ctx.launchSecurity) scsi.driver = { iommu: 'on' };
      const iothread = scsiIoThread(vmi, ctx);
      if (iothread !== undefined) scsi.driver = { ...scsi.driver, iothread, queues: ctx.vcpus };
      list.push(scsi);
    }
    if (ctx.arch.arch === 'amd64' && vmi.metadata.annotations?.[DISABLE_PCI_HOLE64_ANNOTATION] === 'true') {
      list.push({ type: 'pci', index: 0, model: 'pcie-root', pcihole64: 0 });
    }
    if (vmi.spec.domain.devices.autoattachSerialConsole !== false) {
      const serial: Controller = { type: 'virtio-serial', index: 0, model: ctx.virtioModel };
      if (ctx.launchSecurity) serial.driver = { iommu: 'on' };
      list.push(serial);
    }
  },
};
