// The converter's HostDevice message as the launcher fills it (type-only: the converter is loaded lazily).
import type { ConverterContext } from '../../../adapters/converter.js';

export type WireHostDevice = ConverterContext['genericHostDevices'][number];

/** Every field of the message, so a device is always complete whatever subset a caller sets. */
export function hostDevice(fields: Partial<WireHostDevice> & Pick<WireHostDevice, 'type' | 'alias'>): WireHostDevice {
  return {
    pciAddress: '',
    mdevUuid: '',
    usbVendor: '',
    usbProduct: '',
    usbBus: '',
    usbDevice: '',
    guestPciAddress: '',
    bootOrder: 0,
    display: false,
    ramfb: false,
    ...fields,
  };
}
