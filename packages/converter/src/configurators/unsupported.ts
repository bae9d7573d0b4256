// Parts of the VMI API this converter cannot build yet, or cannot build from the facts it is given. Each
// is refused with the field named, before anything is converted: a VMI must never start without
// something it asked for. The README lists what is built and what is refused.
import { ConversionError, quote } from '../errors.js';
import type { HostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import type { Configurator } from './configurator.js';

function requireHostDevice(
  list: HostDevice[],
  alias: string | string[],
  field: string,
  name: string,
  listName: string,
): void {
  const aliases = Array.isArray(alias) ? alias : [alias];
  if (list.some((d) => aliases.includes(d.alias))) return;
  throw new ConversionError(
    field,
    name,
    `no host device ${quote(aliases[0] ?? '')} in context.${listName}: the launcher found no device for it`,
  );
}

export const unsupported: Configurator = {
  name: 'unsupported',
  configure(vmi, _domain, ctx) {
    const spec = vmi.spec.domain;
    // Devices come from the device plugins through the launcher; one the VMI asks for must be there.
    (spec.devices.gpus ?? []).forEach((gpu, i) =>
      requireHostDevice(
        ctx.raw.gpuHostDevices,
        `gpu-${gpu.name}`,
        `spec.domain.devices.gpus[${i}]`,
        gpu.name,
        'gpuHostDevices',
      ),
    );
    (spec.devices.hostDevices ?? []).forEach((dev, i) =>
      // A USB device from the USB device plugin is named usb-host-<name>, as KubeVirt names it.
      requireHostDevice(
        ctx.raw.genericHostDevices,
        [`hostdevice-${dev.name}`, `usb-host-${dev.name}`],
        `spec.domain.devices.hostDevices[${i}]`,
        dev.name,
        'genericHostDevices',
      ),
    );
    (spec.devices.interfaces ?? []).forEach((iface, i) => {
      if (iface.sriov === undefined) return;
      requireHostDevice(
        ctx.raw.sriovDevices,
        `sriov-${iface.name}`,
        `spec.domain.devices.interfaces[${i}]`,
        iface.name,
        'sriovDevices',
      );
    });
  },
};
