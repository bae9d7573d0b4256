// Host devices the launcher found (generic, GPU, SR-IOV, in that order), passed through as given.
import type { HostDevice as WireHostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import type { HostDevice } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import { pciAddress, userAlias, type Configurator } from './configurator.js';

/** The USB device plugin names a device by bus and device number (decimal); otherwise vendor and product ids. */
function usbSource(d: WireHostDevice, field: string): HostDevice['source'] {
  if (d.usbBus === '' && d.usbDevice === '') return { vendor: d.usbVendor, product: d.usbProduct };
  for (const [name, value] of [
    ['usbBus', d.usbBus],
    ['usbDevice', d.usbDevice],
  ] as const) {
    if (!/^\d{1,3}$/.test(value)) {
      throw new ConversionError(
        `${field}.${name}`,
        value,
        `${quote(value)} is not a USB ${name.slice(3).toLowerCase()} number`,
      );
    }
  }
  return { address: { bus: d.usbBus, device: d.usbDevice } };
}

/**
 * A mediated host device from a DRA claim on s390x is an adjunct processor (vfio-ap), as KubeVirt models it by the
 * VMI's architecture; every other mediated device is vfio-pci.
 */
function mdevModel(d: WireHostDevice, architecture: string | undefined): string {
  return architecture === 's390x' && d.alias.startsWith('dra-hostdevice-') ? 'vfio-ap' : 'vfio-pci';
}

function toHostDevice(d: WireHostDevice, field: string, architecture: string | undefined): HostDevice {
  const bad = (f: string, value: string): never => {
    throw new ConversionError(f, value, `${quote(value)} is not a PCI address`);
  };
  const common = {
    alias: d.alias ? userAlias(d.alias) : undefined,
    bootOrder: d.bootOrder || undefined,
    address: d.guestPciAddress ? pciAddress(d.guestPciAddress, `${field}.guestPciAddress`, bad) : undefined,
  };
  switch (d.type) {
    case 'mdev':
      return {
        type: 'mdev',
        mode: 'subsystem',
        model: mdevModel(d, architecture),
        display: d.display ? 'on' : undefined,
        ramfb: d.ramfb ? 'on' : undefined,
        source: { uuid: d.mdevUuid },
        ...common,
      };
    case 'usb':
      // KubeVirt leaves `managed` out of a USB host device named by bus/device (libvirt reads it as no).
      return d.usbBus || d.usbDevice
        ? { type: 'usb', source: usbSource(d, field), ...common }
        : { type: 'usb', managed: 'no', source: usbSource(d, field), ...common };
    case 'pci':
    case '':
      // A PCI GPU may be a vGPU that shows a display; the launcher sets it only when the VMI asked for one.
      return {
        type: 'pci',
        managed: 'no',
        display: d.display ? 'on' : undefined,
        ramfb: d.display && d.ramfb ? 'on' : undefined,
        source: { address: pciAddress(d.pciAddress, `${field}.pciAddress`, bad) },
        ...common,
      };
    default:
      throw new ConversionError(`${field}.type`, d.type, `${quote(d.type)} is not pci, mdev or usb`);
  }
}

export const hostDevices: Configurator = {
  name: 'host-devices',
  configure(vmi, domain, ctx) {
    const lists = [
      ['context.genericHostDevices', ctx.raw.genericHostDevices],
      ['context.gpuHostDevices', ctx.raw.gpuHostDevices],
      ['context.sriovDevices', ctx.raw.sriovDevices],
    ] as const;
    for (const [field, list] of lists) {
      list.forEach((d, i) => domain.devices.hostdevs.push(toHostDevice(d, `${field}[${i}]`, vmi.spec.architecture)));
    }
  },
};
