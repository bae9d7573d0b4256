// Parts of the VMI API this converter cannot build yet, or cannot build from the facts it is given. Each
// is refused with the field named, before anything is converted: a VMI must never start without
// something it asked for. The README lists what is built and what is refused.
import { ConversionError, quote } from '../errors.js';
import type { HostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import type { ClaimRequest, VirtualMachineInstance } from '../vmi/types.js';
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

type ClaimedDevice = ClaimRequest & { name: string; deviceName?: string };

/**
 * Whether the device comes from a DRA resource claim (a claim or request name and no `deviceName`, as KubeVirt
 * tells them apart); its claim request must be complete and name one of `spec.resourceClaims`, and a device
 * plugin's device cannot also name a claim (KubeVirt's admission refuses both).
 */
function fromClaim(d: ClaimedDevice, field: string, vmi: VirtualMachineInstance): boolean {
  const claimed = d.claimName !== undefined || d.requestName !== undefined;
  if (!claimed) return false;
  if (d.deviceName) {
    throw new ConversionError(
      `${field}.claimName`,
      d.claimName ?? d.requestName,
      'a device names a deviceName or a DRA claim request, not both',
    );
  }
  for (const key of ['claimName', 'requestName'] as const) {
    if (!d[key]) {
      throw new ConversionError(
        `${field}.${key}`,
        d[key],
        `${quote(d.name)} has an incomplete claim request: a DRA device needs both claimName and requestName`,
      );
    }
  }
  if (!(vmi.spec.resourceClaims ?? []).some((c) => c.name === d.claimName)) {
    throw new ConversionError(
      `${field}.claimName`,
      d.claimName,
      `${quote(d.claimName ?? '')} names no entry of spec.resourceClaims`,
    );
  }
  return true;
}

export const unsupported: Configurator = {
  name: 'unsupported',
  configure(vmi, _domain, ctx) {
    const spec = vmi.spec.domain;
    // Devices come from the device plugins or DRA claims through the launcher; one the VMI asks for must be there.
    (spec.devices.gpus ?? []).forEach((gpu, i) => {
      const field = `spec.domain.devices.gpus[${i}]`;
      const alias = fromClaim(gpu, field, vmi) ? `dra-gpu-${gpu.name}` : `gpu-${gpu.name}`;
      requireHostDevice(ctx.raw.gpuHostDevices, alias, field, gpu.name, 'gpuHostDevices');
    });
    (spec.devices.hostDevices ?? []).forEach((dev, i) => {
      const field = `spec.domain.devices.hostDevices[${i}]`;
      // A USB device from the USB device plugin is named usb-host-<name>, as KubeVirt names it.
      const aliases = fromClaim(dev, field, vmi)
        ? [`dra-hostdevice-${dev.name}`]
        : [`hostdevice-${dev.name}`, `usb-host-${dev.name}`];
      requireHostDevice(ctx.raw.genericHostDevices, aliases, field, dev.name, 'genericHostDevices');
    });
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
