// <disk> devices: device kind, bus and target, driver settings, IOThread ids, volume source.
import type { Resolved } from '../context/resolve.js';
import type { DomainDisk } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { Disk, VirtualMachineInstance } from '../vmi/types.js';
import { pciAddress, userAlias, type Configurator } from './configurator.js';
import { assignTargets, suffixToIndex } from './disk-names.js';
import { diskBlockIo } from './block-size.js';
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

/** What every step of one disk's conversion reads; the steps then fill one DomainDisk in order. */
interface DiskInput {
  vmi: VirtualMachineInstance;
  disk: Disk;
  /** The disk's path in the VMI, for error messages. */
  field: string;
  kind: 'cdrom' | 'lun' | 'disk';
  device: NonNullable<Disk['disk']>;
  bus: string;
  target: string;
  ctx: Resolved;
}

function describeDisk(vmi: VirtualMachineInstance, disk: Disk, i: number, target: string, ctx: Resolved): DiskInput {
  const device = disk.cdrom ?? disk.lun ?? disk.disk ?? {};
  return {
    vmi,
    disk,
    field: `spec.domain.devices.disks[${i}]`,
    kind: disk.cdrom ? 'cdrom' : disk.lun ? 'lun' : 'disk',
    device,
    bus: device.bus ?? ctx.arch.defaultDiskBus,
    target,
    ctx,
  };
}

/** Index of the disk's volume, or -1 for a CD-ROM without one; any other disk needs a volume. */
function volumeIndexOf(input: DiskInput, lookup: VolumeLookup): number {
  const volumeIndex = lookup.index.get(input.disk.name) ?? -1;
  if (volumeIndex < 0 && input.kind !== 'cdrom')
    throw new ConversionError(`${input.field}.name`, input.disk.name, `no volume named ${quote(input.disk.name)}`);
  return volumeIndex;
}

/**
 * Device kind, target and bus, serial (a disk's only: KubeVirt gives a CD-ROM or LUN none), the driver's
 * cache/io/error policy, alias and boot order.
 */
function targetAndDriver({ disk, kind, bus, target }: DiskInput): DomainDisk {
  return {
    device: kind,
    type: 'file',
    source: {},
    target: { bus, dev: target, tray: disk.cdrom?.tray || undefined },
    serial: (kind === 'disk' && disk.serial) || undefined,
    driver: {
      name: 'qemu',
      cache: disk.cache || undefined,
      io: disk.io || undefined,
      errorPolicy: disk.errorPolicy || 'stop',
    },
    alias: userAlias(disk.name),
    bootOrder: disk.bootOrder || undefined,
  };
}

/**
 * virtio model (a disk's only: KubeVirt leaves a virtio LUN without one), read-only (a CD-ROM is
 * read-only unless it says otherwise) and discard.
 */
function deviceFlags(out: DomainDisk, { disk, kind, device, bus, ctx }: DiskInput): void {
  if (bus === 'virtio' && kind === 'disk') out.model = ctx.virtioModel;
  if (kind === 'cdrom') out.readonly = disk.cdrom?.readonly !== false;
  else out.readonly = device.readonly === true || undefined;
  if (kind !== 'cdrom' && !ctx.raw.volumesDiscardIgnore.includes(disk.name)) out.driver.discard = 'unmap';
}

/**
 * SCSI disks and LUNs sit on controller 0 at the unit their target names; a SCSI CD-ROM is left for
 * libvirt to place, as KubeVirt leaves it. A PCI address only on the virtio bus.
 */
function deviceAddress(out: DomainDisk, { disk, kind, bus, target, field }: DiskInput): void {
  if (bus === 'scsi' && kind !== 'cdrom')
    out.address = { type: 'drive', controller: '0', bus: '0', unit: String(suffixToIndex(target.slice(2))) };
  const pci = disk.disk?.pciAddress;
  if (pci) {
    if (bus !== 'virtio')
      throw new ConversionError(`${field}.disk.pciAddress`, pci, 'is only supported on the virtio bus');
    out.address = pciAddress(pci, `${field}.disk.pciAddress`, (f, v) => {
      throw new ConversionError(f, v, `${quote(v)} is not a PCI address`);
    });
  }
}

/** virtio only: multi-queue, IOMMU under launch security, IOThreads. */
function virtioDriver(out: DomainDisk, { vmi, disk, bus, ctx }: DiskInput, threads: ThreadIds): void {
  if (bus !== 'virtio') return;
  if (vmi.spec.domain.devices.blockMultiQueue) out.driver.queues = ctx.vcpus;
  if (ctx.launchSecurity) out.driver.iommu = 'on';
  threads.assign(disk, out.driver);
}

/** Persistent reservations go through the pod's pr-helper socket. */
function reservation(out: DomainDisk, { disk, ctx }: DiskInput): void {
  if (!disk.lun?.reservation) return;
  out.source.reservations = {
    managed: 'no',
    migration: 'yes',
    source: { type: 'unix', path: `${ctx.paths.kubevirtRunDir}/daemons/pr/pr-helper.sock`, mode: 'client' },
  };
}

/**
 * Shareable (cache none, the only safe cache for a disk written by two guests) and the block size.
 * KubeVirt reads `shareable` on disks only: a CD-ROM or LUN that sets it keeps its own cache, unshared.
 */
function sharingAndBlockSize(out: DomainDisk, { disk, kind, field, ctx }: DiskInput): void {
  if (disk.shareable && kind === 'disk') {
    out.shareable = true;
    out.driver.cache ??= 'none';
    if (out.driver.cache !== 'none')
      throw new ConversionError(`${field}.cache`, disk.cache, 'a shareable disk needs cache none');
  }
  const blockio = diskBlockIo(disk, field, ctx);
  if (blockio) out.blockio = blockio;
}

/** A CD-ROM without a volume is an empty tray, ready for media to be inserted later. */
function emptyTray(out: DomainDisk): void {
  out.type = 'block';
  out.driver = { ...out.driver, type: 'raw', discard: 'unmap' };
}

/** The volume's source, format, backing store and discard; a metrics disk gets a fixed read-only raw driver. */
function volumeSource(out: DomainDisk, { vmi, disk, ctx }: DiskInput, volumeIndex: number): void {
  const vd = volumeDisk(vmi, (vmi.spec.volumes ?? [])[volumeIndex]!, volumeIndex, ctx);
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
    const { errorPolicy, iothread, iothreads } = out.driver;
    out.driver = { name: 'qemu', type: 'raw', errorPolicy, iothread, iothreads };
    out.readonly = true;
    out.model = ctx.virtioModel;
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
  const input = describeDisk(vmi, disk, i, target, ctx);
  const volumeIndex = volumeIndexOf(input, lookup);
  if (!included(disk.name, ctx, volumeIndex < 0, lookup.anyPermanent)) {
    // KubeVirt hands out IOThread ids to every disk of the spec, also one it leaves out of the domain:
    // the disks after it keep the ids they would have had with it.
    if (input.bus === 'virtio') threads.assign(disk, { name: 'qemu' });
    return undefined;
  }
  const out = targetAndDriver(input);
  deviceFlags(out, input);
  deviceAddress(out, input);
  virtioDriver(out, input, threads);
  reservation(out, input);
  sharingAndBlockSize(out, input);
  if (volumeIndex < 0) emptyTray(out);
  else volumeSource(out, input, volumeIndex);
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
