// The defaults KubeVirt's API (webhooks and generated defaulters) applies before a VMI reaches
// virt-launcher, so that a person's plain YAML converts like an object served by the API. Each step is
// idempotent: an already-defaulted VMI (as the golden vectors hold) comes out unchanged.
import { archFacts, type ArchFacts } from '../context/arch.js';
import { ConversionError, quote } from '../errors.js';
import { parseQuantity, toBytes } from '../quantity.js';
import type { Disk, DomainSpec, VirtualMachineInstance } from './types.js';
import { FIRMWARE_UUID_NAMESPACE, uuidV5 } from './uuid.js';

/** KubeVirt's default ratio between maxGuest and guest memory for memory hot-plug. */
export const MAX_HOTPLUG_RATIO = 4n;
const MIB2 = 2n * 1024n * 1024n;
const GIB = 1024n * 1024n * 1024n;

function defaultIdentity(vmi: VirtualMachineInstance): void {
  const meta = vmi.metadata;
  meta.namespace ||= 'default';
  // The API server would assign a random uid; a name-derived one keeps plain-YAML conversions reproducible.
  meta.uid ||= uuidV5(FIRMWARE_UUID_NAMESPACE, `uid/${meta.namespace}/${meta.name}`);
  const domain = vmi.spec.domain;
  domain.firmware ??= {};
  domain.firmware.uuid ||= uuidV5(FIRMWARE_UUID_NAMESPACE, meta.name);
}

function defaultDisks(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  const devices = vmi.spec.domain.devices;
  const disks = (devices.disks ??= []);
  // Every volume gets a disk: a volume listed without one becomes a plain disk (SetDefaultVolumeDisk).
  for (const volume of vmi.spec.volumes ?? []) {
    if (!disks.some((d) => d.name === volume.name)) disks.push({ name: volume.name });
  }
  for (const disk of disks) defaultDisk(disk, arch);
}

function defaultDisk(disk: Disk, arch: ArchFacts): void {
  if (!disk.disk && !disk.lun && !disk.cdrom) disk.disk = {};
  const device = disk.disk ?? disk.lun ?? disk.cdrom;
  if (device && !device.bus) device.bus = arch.defaultDiskBus;
  if (disk.cdrom) {
    disk.cdrom.readonly ??= true;
    disk.cdrom.tray ??= 'closed';
  }
}

function defaultMemory(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  const domain = vmi.spec.domain;
  const guest = domain.memory?.guest ?? domain.resources?.requests?.memory ?? domain.resources?.limits?.memory;
  if (guest === undefined) {
    throw new ConversionError(
      'spec.domain.resources.requests.memory',
      undefined,
      'no memory is set (nor memory.guest)',
    );
  }
  domain.memory ??= {};
  domain.memory.guest ??= guest;
  if (domain.memory.maxGuest === undefined && memoryHotplugAllowed(domain, arch)) {
    const bytes = toBytes(parseQuantity(guest)!);
    domain.memory.maxGuest = String(bytes * MAX_HOTPLUG_RATIO);
  }
}

/** KubeVirt only offers memory hot-plug where virtio-mem works and the sizes align. */
function memoryHotplugAllowed(domain: DomainSpec, arch: ArchFacts): boolean {
  const guest = toBytes(parseQuantity(domain.memory!.guest!)!);
  const pageSize = domain.memory?.hugepages?.pageSize;
  const align = pageSize === '1Gi' ? GIB : MIB2;
  return (
    arch.arch === 'amd64' &&
    guest >= GIB &&
    guest % align === 0n &&
    domain.cpu?.numa?.guestMappingPassthrough === undefined &&
    !(domain as { launchSecurity?: unknown }).launchSecurity
  );
}

function defaultCpu(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  const domain = vmi.spec.domain;
  const cpu = (domain.cpu ??= {});
  // The webhook's default model is the cluster's (host-model; host-passthrough on arm64).
  cpu.model ||= arch.defaultCpuMode;
  if (!cpu.cores && !cpu.sockets && !cpu.threads) {
    const quantity = domain.resources?.limits?.cpu ?? domain.resources?.requests?.cpu;
    const parsed = quantity !== undefined ? parseQuantity(quantity) : undefined;
    const value = parsed ? Number((parsed.numerator + parsed.denominator - 1n) / parsed.denominator) : 1;
    cpu.sockets = Math.max(1, value);
  }
  cpu.cores ||= 1;
  cpu.threads ||= 1;
  cpu.sockets ||= 1;
}

function defaultFeatures(vmi: VirtualMachineInstance): void {
  const features = vmi.spec.domain.features;
  if (!features) return;
  for (const key of ['acpi', 'apic', 'smm'] as const) {
    const toggle = features[key];
    if (toggle && toggle.enabled === undefined) toggle.enabled = true;
  }
  const spinlocks = features.hyperv?.spinlocks;
  if (spinlocks && spinlocks.enabled !== false && spinlocks.spinlocks === undefined) spinlocks.spinlocks = 4096;
}

function defaultNetworks(vmi: VirtualMachineInstance): void {
  const devices = vmi.spec.domain.devices;
  // autoattachPodInterface (default on): a VMI with no interfaces and no networks gets the pod network.
  if (
    !devices.interfaces?.length &&
    !vmi.spec.networks?.length &&
    (devices as { autoattachPodInterface?: boolean }).autoattachPodInterface !== false
  ) {
    devices.interfaces = [{ name: 'default', masquerade: {} }];
    vmi.spec.networks = [{ name: 'default', pod: {} }];
  }
}

function defaultWatchdog(vmi: VirtualMachineInstance): void {
  const watchdog = vmi.spec.domain.devices.watchdog;
  if (watchdog?.i6300esb) watchdog.i6300esb.action ||= 'reset';
  if (watchdog?.diag288) watchdog.diag288.action ||= 'reset';
}

function defaultMachine(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  const domain = vmi.spec.domain;
  domain.machine ??= {};
  domain.machine.type ||= arch.defaultMachine;
}

/** Applies the API's defaults in place and returns the VMI. */
export function applyDefaults(vmi: VirtualMachineInstance, architecture?: string): VirtualMachineInstance {
  vmi.spec.domain.devices ??= {};
  const arch = archFacts(vmi.spec.architecture || architecture);
  if (vmi.spec.architecture && archFacts(vmi.spec.architecture).arch !== vmi.spec.architecture) {
    throw new ConversionError(
      'spec.architecture',
      vmi.spec.architecture,
      `${quote(vmi.spec.architecture)} is not amd64, arm64 or s390x`,
    );
  }
  defaultIdentity(vmi);
  defaultDisks(vmi, arch);
  defaultMemory(vmi, arch);
  defaultCpu(vmi, arch);
  defaultFeatures(vmi);
  defaultNetworks(vmi);
  defaultWatchdog(vmi);
  defaultMachine(vmi, arch);
  return vmi;
}
