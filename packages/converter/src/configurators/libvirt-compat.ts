// Adaptations of KubeVirt's domain shape to what libvirt accepts, most decided by context.libvirtVersion.
// Each is listed in the README. An unknown version gets KubeVirt's shape unchanged, except where
// libvirt's schema itself requires an attribute KubeVirt leaves out.
import { libvirtOlderThan, type Resolved } from '../context/resolve.js';
import type { Domain } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { Configurator } from './configurator.js';

/** First libvirt major assumed to take KubeVirt's memory hot-plug shape; 9.0 is measured to refuse it. */
export const MEMORY_HOTPLUG_SHAPE_SINCE = [10, 0] as const;
/**
 * First libvirt assumed to keep a disk's `<driver><iothreads>` list and `<nvram format>`: 9.0 is
 * measured to drop both silently at define (and its schema to reject them).
 */
export const DISK_IOTHREAD_LIST_SINCE = [10, 0] as const;
export const NVRAM_FORMAT_SINCE = [10, 0] as const;
/**
 * First libvirt assumed to define a vhost-user NIC with the passt back end. 9.0 is measured to refuse
 * both that and `<interface type="user"><backend type="passt">` ("Invalid value … 'passt'"), so there
 * is no older shape to adapt to: such a VMI is refused rather than started without its NIC.
 */
export const PASST_VHOSTUSER_SINCE = [11, 1] as const;
/**
 * First libvirt assumed to know a disk source's `<dataStore>` (a qcow2 with an external raw data file,
 * which changed block tracking needs). 9.0 is measured to drop the element silently at define (and its
 * schema to reject it): the guest would write into the bitmap overlay instead of its volume, so such a
 * disk is refused.
 */
export const DATA_STORE_SINCE = [10, 10] as const;

function memoryHotplug(domain: Domain, ctx: Resolved): void {
  const [major, minor] = MEMORY_HOTPLUG_SHAPE_SINCE;
  if (!domain.maxMemory || !libvirtOlderThan(ctx, major, minor)) return;
  // libvirt 9.0: `<maxMemory slots="0">` is refused ("both maximum memory size and memory slot count
  // must be specified"): one slot is enough, virtio-mem does not use DIMM slots.
  if (domain.maxMemory.slots < 1) domain.maxMemory.slots = 1;
  // libvirt 9.0: memory hot-plug needs a guest NUMA topology; one cell holding all vCPUs and memory
  // is the topology the guest had anyway.
  if (domain.cpu && domain.cpu.numaCells.length === 0 && domain.memoryBytes !== undefined) {
    const vcpus = domain.vcpu ?? 1;
    domain.cpu.numaCells.push({
      id: 0,
      cpus: vcpus > 1 ? `0-${vcpus - 1}` : '0',
      memoryKiB: domain.memoryBytes / 1024n,
    });
  }
}

/**
 * The supplemental IOThread pool: each virtio disk lists every pool thread. An older libvirt would
 * drop the list and leave the disk on QEMU's main loop, so each disk takes one pool thread instead,
 * round-robin: the I/O still leaves the main loop and spreads over the pool.
 */
function diskIoThreadList(domain: Domain, ctx: Resolved): void {
  const [major, minor] = DISK_IOTHREAD_LIST_SINCE;
  if (!libvirtOlderThan(ctx, major, minor)) return;
  let next = 0;
  for (const disk of domain.devices.disks) {
    const pool = disk.driver.iothreads;
    if (!pool || pool.length === 0) continue;
    disk.driver.iothread = pool[next % pool.length];
    disk.driver.iothreads = undefined;
    next++;
  }
}

function nvramFormat(domain: Domain, ctx: Resolved): void {
  const [major, minor] = NVRAM_FORMAT_SINCE;
  const nvram = domain.os.nvram;
  // raw is libvirt's default format: leaving the attribute out asks for the same file.
  if (nvram?.format === 'raw' && libvirtOlderThan(ctx, major, minor)) nvram.format = undefined;
}

function passtBackend(domain: Domain, ctx: Resolved): void {
  const [major, minor] = PASST_VHOSTUSER_SINCE;
  if (!libvirtOlderThan(ctx, major, minor)) return;
  const nic = domain.devices.interfaces.find((i) => i.backend?.type === 'passt');
  if (!nic) return;
  const name = nic.alias.name.replace(/^ua-/, '');
  throw new ConversionError(
    'spec.domain.devices.interfaces',
    name,
    `the passt binding of interface ${quote(name)} needs libvirt ${major}.${minor} or newer (vhost-user with the passt back end); context.libvirtVersion is ${quote(ctx.raw.libvirtVersion ?? '')}`,
  );
}

function dataStore(domain: Domain, ctx: Resolved): void {
  const [major, minor] = DATA_STORE_SINCE;
  if (!libvirtOlderThan(ctx, major, minor)) return;
  const disk = domain.devices.disks.find((d) => d.source.dataStore);
  if (!disk) return;
  const name = disk.alias?.name.replace(/^ua-/, '') ?? '';
  throw new ConversionError(
    'spec.domain.devices.disks',
    name,
    `changed block tracking of disk ${quote(name)} (context.applyCBT) needs libvirt ${major}.${minor} or newer (<dataStore>); context.libvirtVersion is ${quote(ctx.raw.libvirtVersion ?? '')}`,
  );
}

/** libvirt's schema requires a clock offset; without one libvirtd stores utc, so write that. */
function clockOffset(domain: Domain): void {
  if (domain.clock && domain.clock.offset === undefined) domain.clock.offset = 'utc';
}

/**
 * libvirt's schema requires a CPU feature's policy; KubeVirt leaves it out when the VMI does, and libvirtd
 * then stores `require` (measured), so write that.
 */
function cpuFeaturePolicy(domain: Domain): void {
  for (const feature of domain.cpu?.features ?? []) feature.policy ??= 'require';
}

export const libvirtCompat: Configurator = {
  name: 'libvirt-compat',
  configure(_vmi, domain, ctx) {
    memoryHotplug(domain, ctx);
    diskIoThreadList(domain, ctx);
    nvramFormat(domain, ctx);
    clockOffset(domain);
    cpuFeaturePolicy(domain);
    passtBackend(domain, ctx);
    dataStore(domain, ctx);
  },
};
