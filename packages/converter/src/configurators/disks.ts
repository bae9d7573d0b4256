// <disk> devices: device kind, bus and target, driver settings, IOThread ids, volume source.
import type { Resolved } from '../context/resolve.js';
import type { DomainDisk } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { Disk, VirtualMachineInstance } from '../vmi/types.js';
import { pciAddress, userAlias, type Configurator } from './configurator.js';
import { assignTargets, suffixToIndex } from './disk-names.js';
import { volumeDisk } from './disk-sources.js';

interface VolumeLookup {
  /** Volume name -> its index in spec.volumes. */
  index: Map<string, number>;
  anyPermanent: boolean;
}

const READY_PHASES = new Set(['MountedToPod', 'Ready']);

/** A disk joins the domain once its volume is ready (hot-plugged ones only when mounted). */
function included(name: string, ctx: Resolved, emptyCdrom: boolean, anyPermanent: boolean): boolean {
  const permanent = ctx.raw.permanentVolumes;
  if (emptyCdrom || !anyPermanent || permanent[name]) return true;
  const hotplug = ctx.raw.hotplugVolumes[name];
  return hotplug !== undefined && READY_PHASES.has(hotplug.phase);
}

class ThreadIds {
  private nextDedicated: number;
  private nextShared = 0;
  constructor(private readonly ctx: Resolved) {
    this.nextDedicated = ctx.ioThreads.shared;
  }
  /**
   * Dedicated disks get their own thread after the shared pool; others take the pool round-robin. With
   * the supplemental pool every virtio disk is served by all of the pool's threads.
   */
  assign(disk: Disk, driver: DomainDisk['driver']): void {
    const plan = this.ctx.ioThreads;
    if (plan.total === 0) return;
    if (plan.supplementalPool) {
      driver.iothreads = Array.from({ length: plan.total }, (_, i) => i + 1);
      return;
    }
    if (disk.dedicatedIOThread) {
      driver.iothread = ++this.nextDedicated;
      return;
    }
    driver.iothread = (this.nextShared % plan.shared) + 1;
    this.nextShared++;
  }
}

function convertDisk(
  vmi: VirtualMachineInstance,
  disk: Disk,
  i: number,
  target: string,
  ctx: Resolved,
  threads: ThreadIds,
  lookup: VolumeLookup,
): DomainDisk | undefined {
  const field = `spec.domain.devices.disks[${i}]`;
  const kind = disk.cdrom ? 'cdrom' : disk.lun ? 'lun' : 'disk';
  const device = disk.cdrom ?? disk.lun ?? disk.disk ?? {};
  const bus = device.bus ?? ctx.arch.defaultDiskBus;
  const volumes = vmi.spec.volumes ?? [];
  const volumeIndex = lookup.index.get(disk.name) ?? -1;
  if (volumeIndex < 0 && kind !== 'cdrom')
    throw new ConversionError(`${field}.name`, disk.name, `no volume named ${quote(disk.name)}`);
  if (!included(disk.name, ctx, volumeIndex < 0, lookup.anyPermanent)) return undefined;
  const errorPolicy = disk.errorPolicy || 'stop';
  const out: DomainDisk = {
    device: kind,
    type: 'file',
    source: {},
    target: { bus, dev: target, tray: disk.cdrom?.tray || undefined },
    serial: disk.serial || undefined,
    driver: { name: 'qemu', cache: disk.cache || undefined, io: disk.io || undefined, errorPolicy },
    alias: userAlias(disk.name),
    bootOrder: disk.bootOrder || undefined,
  };
  if (bus === 'virtio') out.model = ctx.virtioModel;
  if (kind === 'cdrom') out.readonly = disk.cdrom?.readonly !== false;
  else out.readonly = device.readonly === true || undefined;
  if (kind !== 'cdrom' && !ctx.raw.volumesDiscardIgnore.includes(disk.name)) out.driver.discard = 'unmap';
  if (bus === 'scsi')
    out.address = { type: 'drive', controller: '0', bus: '0', unit: String(suffixToIndex(target.slice(2))) };
  const pci = disk.disk?.pciAddress;
  if (pci) {
    if (bus !== 'virtio')
      throw new ConversionError(`${field}.disk.pciAddress`, pci, 'is only supported on the virtio bus');
    out.address = pciAddress(pci, `${field}.disk.pciAddress`, (f, v) => {
      throw new ConversionError(f, v, `${quote(v)} is not a PCI address`);
    });
  }
  if (bus === 'virtio') {
    if (vmi.spec.domain.devices.blockMultiQueue) out.driver.queues = ctx.vcpus;
    if (ctx.launchSecurity) out.driver.iommu = 'on';
    threads.assign(disk, out.driver);
  }
  if (disk.lun?.reservation) {
    out.source.reservations = {
      managed: 'no',
      migration: 'yes',
      source: { type: 'unix', path: `${ctx.paths.kubevirtRunDir}/daemons/pr/pr-helper.sock`, mode: 'client' },
    };
  }
  if (disk.shareable) {
    out.shareable = true;
    out.driver.cache ??= 'none';
    if (out.driver.cache !== 'none')
      throw new ConversionError(`${field}.cache`, disk.cache, 'a shareable disk needs cache none');
  }
  const custom = disk.blockSize?.custom;
  if (custom)
    out.blockio = { logical: custom.logical, physical: custom.physical, discardGranularity: custom.discardGranularity };
  if (volumeIndex < 0) {
    // A CD-ROM without a volume is an empty tray, ready for media to be inserted later.
    out.type = 'block';
    out.driver = { ...out.driver, type: 'raw', discard: 'unmap' };
    return out;
  }
  const vd = volumeDisk(vmi, volumes[volumeIndex]!, volumeIndex, ctx);
  out.type = vd.type;
  // volumeDisk() returns a fresh source: keep it and add the reservations (spreading it cost ~10% of convert).
  const reservations = out.source.reservations;
  out.source = vd.source;
  if (reservations) out.source.reservations = reservations;
  out.driver.type = vd.format;
  out.backingStore = vd.backingStore;
  const ignored = ctx.raw.volumesDiscardIgnore.includes(disk.name);
  if (vd.discard === 'always' || (vd.discard === 'unlessIgnored' && !ignored)) out.driver.discard = 'unmap';
  if (vd.metricsDisk) {
    // A fixed raw driver replaces the device's settings; the error policy and IOThread are set after
    // the source in KubeVirt, so they stay.
    const { iothread, iothreads } = out.driver;
    out.driver = { name: 'qemu', type: 'raw', errorPolicy, iothread, iothreads };
    out.readonly = true;
    out.model = ctx.virtioModel;
  }
  return out;
}

export const disks: Configurator = {
  name: 'disks',
  configure(vmi, domain, ctx) {
    const targets = assignTargets(vmi);
    const threads = new ThreadIds(ctx);
    // Looked up once, not per disk: a VMI with thousands of disks must not convert in quadratic time.
    const lookup: VolumeLookup = {
      index: new Map((vmi.spec.volumes ?? []).map((v, i) => [v.name, i])),
      anyPermanent: Object.keys(ctx.raw.permanentVolumes).length > 0,
    };
    (vmi.spec.domain.devices.disks ?? []).forEach((disk, i) => {
      const out = convertDisk(vmi, disk, i, targets.get(disk.name)!, ctx, threads, lookup);
      if (out) domain.devices.disks.push(out);
    });
  },
};
