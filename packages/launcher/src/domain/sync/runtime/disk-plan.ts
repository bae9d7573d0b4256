// Which disks a running domain gains and loses on a re-sync: the pure half of the disk reconcile. As in
// KubeVirt's syncDisks, only hotplug disks (their source under the hotplug directory) on a bus that can
// hot-plug (virtio, scsi) ever change, and disks are matched by their target device: the converter gives a
// volume the same target on every sync, so a disk present on both sides is left alone.
import { devicesOf, diskSource, innerAttr, type DeviceXml } from './devices.js';

export interface DiskDevice extends DeviceXml {
  /** Target device in the guest, e.g. `vdb`. */
  target: string;
  /** The file or device node backing it. */
  source: string;
  /** The volume's name (the alias without `ua-`). */
  volume: string;
}

export interface DiskPlan {
  attach: DiskDevice[];
  detach: DiskDevice[];
}

const HOTPLUG_BUSES = new Set(['virtio', 'scsi']);

function disksOf(domainXml: string): DiskDevice[] {
  return devicesOf(domainXml, 'disk').map((d) => ({
    ...d,
    target: innerAttr(d.xml, 'target', 'dev') ?? '',
    source: diskSource(d.xml) ?? '',
    volume: d.alias.replace(/^ua-/, ''),
  }));
}

/** A hotplug disk: backed under the hotplug directory, on a bus that takes a disk while the guest runs. */
export function isHotplugDisk(disk: DiskDevice, hotplugDir: string): boolean {
  const bus = innerAttr(disk.xml, 'target', 'bus') ?? '';
  return disk.source.startsWith(`${hotplugDir.replace(/\/+$/, '')}/`) && (bus === '' || HOTPLUG_BUSES.has(bus));
}

/** What to attach (in the desired domain, not live) and detach (live, no longer desired). */
export function planDisks(desiredXml: string, liveXml: string, hotplugDir: string): DiskPlan {
  const desired = disksOf(desiredXml).filter((d) => isHotplugDisk(d, hotplugDir));
  const live = disksOf(liveXml);
  const liveTargets = new Set(live.map((d) => d.target));
  const desiredTargets = new Set(disksOf(desiredXml).map((d) => d.target));
  return {
    attach: desired.filter((d) => !liveTargets.has(d.target)),
    detach: live.filter((d) => isHotplugDisk(d, hotplugDir) && !desiredTargets.has(d.target)),
  };
}

/** Every live disk backed by a file or device, for the resize check. */
export function liveDisks(liveXml: string): DiskDevice[] {
  return disksOf(liveXml).filter((d) => d.source !== '' && d.target !== '');
}
