// Host devices the launcher found (generic, GPU, SR-IOV, in that order), passed through as given.
import type { HostDevice as WireHostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import type { HostDevice } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import { pciAddress, userAlias, type Configurator } from './configurator.js';

function toHostDevice(d: WireHostDevice, field: string): HostDevice {
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
        model: 'vfio-pci',
        display: d.display ? 'on' : undefined,
        ramfb: d.ramfb ? 'on' : undefined,
        source: { uuid: d.mdevUuid },
        ...common,
      };
    case 'usb':
      return { type: 'usb', managed: 'no', source: { vendor: d.usbVendor, product: d.usbProduct }, ...common };
    case 'pci':
    case '':
      return {
        type: 'pci',
        managed: 'no',
        source: { address: pciAddress(d.pciAddress, `${field}.pciAddress`, bad) },
        ...common,
      };
    default:
      throw new ConversionError(`${field}.type`, d.type, `${quote(d.type)} is not pci, mdev or usb`);
  }
}

export const hostDevices: Configurator = {
  name: 'host-devices',
  configure(_vmi, domain, ctx) {
    const lists = [
      ['context.genericHostDevices', ctx.raw.genericHostDevices],
      ['context.gpuHostDevices', ctx.raw.gpuHostDevices],
      ['context.sriovDevices', ctx.raw.sriovDevices],
    ] as const;
    for (const [field, list] of lists) {
      list.forEach((d, i) => domain.devices.hostdevs.push(toHostDevice(d, `${field}[${i}]`)));
    }
  },
};
