// Target device names: vd* for virtio, sd* for sata/scsi/usb, in bijective base 26 (a..z, aa..zz,
// aaa..). Names already recorded in status.volumeStatus keep their targets; the rest take the lowest
// free name in spec order.
import { ConversionError, quote } from '../errors.js';
import type { VirtualMachineInstance } from '../vmi/types.js';

export function indexToSuffix(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    out = String.fromCharCode(97 + rem) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

export function suffixToIndex(suffix: string): number {
  let n = 0;
  for (const c of suffix) n = n * 26 + (c.charCodeAt(0) - 96);
  return n - 1;
}

export function prefixForBus(bus: string): string {
  if (bus === 'virtio') return 'vd';
  if (bus === 'sata' || bus === 'scsi' || bus === 'usb') return 'sd';
  return '';
}

const LIMIT = 26 ** 3 + 26 ** 2 + 26;

/** Disk name -> target dev for every disk of the VMI. */
export function assignTargets(vmi: VirtualMachineInstance): Map<string, string> {
  const disks = vmi.spec.domain.devices.disks ?? [];
  const taken = new Set<string>();
  const out = new Map<string, string>();
  const reserved = new Map(
    (vmi.status?.volumeStatus ?? []).filter((s) => s.target).map((s) => [s.name, s.target as string]),
  );
  for (const disk of disks) {
    const target = reserved.get(disk.name);
    if (target) {
      out.set(disk.name, target);
      taken.add(target);
    }
  }
  // Names are only ever taken, never freed, so the lowest free index of a prefix only moves up: one cursor
  // per prefix keeps the whole assignment linear in the number of disks.
  const cursor = new Map<string, number>();
  disks.forEach((disk, i) => {
    if (out.has(disk.name)) return;
    const bus = (disk.disk ?? disk.lun ?? disk.cdrom)?.bus ?? '';
    const prefix = prefixForBus(bus);
    if (!prefix) {
      throw new ConversionError(
        `spec.domain.devices.disks[${i}].bus`,
        bus,
        `${quote(bus)} is not virtio, sata, scsi or usb`,
      );
    }
    let n = cursor.get(prefix) ?? 0;
    while (n < LIMIT && taken.has(prefix + indexToSuffix(n))) n++;
    if (n >= LIMIT)
      throw new ConversionError(`spec.domain.devices.disks[${i}]`, disk.name, 'no free target device name');
    const name = prefix + indexToSuffix(n);
    taken.add(name);
    out.set(disk.name, name);
    cursor.set(prefix, n + 1);
  });
  return out;
}
