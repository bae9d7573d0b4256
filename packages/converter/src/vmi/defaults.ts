// The defaults KubeVirt's API (webhooks and generated defaulters) applies before a VMI reaches
// virt-launcher, so that a person's plain YAML converts like an object served by the API. Each step is
// idempotent: an already-defaulted VMI (as the golden vectors hold) comes out unchanged.
import { archFacts, type ArchFacts } from '../context/arch.js';
import { ConversionError, quote } from '../errors.js';
import { parseQuantity, toBytes } from '@virt-launcher/shared';
import { applyApiTypeDefaults } from './defaults-api.js';
import { applyArchDefaults, applyArchFeatureDefaults } from './defaults-arch.js';
import { applyHypervDependencies } from './defaults-hyperv.js';
import type { DomainSpec, VirtualMachineInstance } from './types.js';
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
}

/**
 * The firmware UUID the guest sees (SMBIOS, cloud-init's instance id on some images). KubeVirt's API draws
 * a random one for a bare VMI and virt-controller derives one from the name for a VM's VMI (UUIDv5 of
 * the name in its firmware namespace). We always derive it from the name, as for a VM: converting the same
 * YAML twice must give the same domain, and a VMI restarted under the same name keeps its identity.
 */
function firmwareUuid(vmi: VirtualMachineInstance): () => string {
  return () => uuidV5(FIRMWARE_UUID_NAMESPACE, vmi.metadata.name);
}

/** A volume listed without a disk becomes a plain disk (KubeVirt's SetDefaultVolumeDisk). */
function defaultVolumeDisks(vmi: VirtualMachineInstance): void {
  const devices = vmi.spec.domain.devices;
  const disks = (devices.disks ??= []);
  const named = new Set(disks.map((d) => d.name));
  const filesystems = new Set((devices.filesystems ?? []).map((f) => f.name));
  for (const volume of vmi.spec.volumes ?? []) {
    // A memory dump volume is a dump target directory: KubeVirt adds it to a running VMI, after the
    // webhook that makes disks, so it never has one.
    if (named.has(volume.name) || filesystems.has(volume.name) || volume.memoryDump) continue;
    disks.push({ name: volume.name });
    named.add(volume.name);
  }
}

/** A CPU limit without a request makes the request equal to it. */
function defaultResourceRequests(vmi: VirtualMachineInstance): void {
  const resources = vmi.spec.domain.resources;
  const limit = resources?.limits?.cpu;
  if (!resources || limit === undefined || isZero(limit) || !isZero(resources.requests?.cpu)) return;
  resources.requests ??= {};
  resources.requests.cpu = limit;
}

function isZero(quantity: string | undefined): boolean {
  const q = quantity !== undefined ? parseQuantity(quantity) : undefined;
  return !q || q.numerator === 0n;
}

/** A container disk image without a tag, or tagged latest, is pulled always; others if not present. */
function defaultPullPolicies(vmi: VirtualMachineInstance): void {
  for (const volume of vmi.spec.volumes ?? []) {
    const disk = volume.containerDisk;
    if (!disk || disk.imagePullPolicy) continue;
    const image = disk.image ?? '';
    disk.imagePullPolicy = image.endsWith(':latest') || !/[:@]/.test(image) ? 'Always' : 'IfNotPresent';
  }
}

function defaultMemory(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  const domain = vmi.spec.domain;
  const requests = domain.resources?.requests?.memory;
  const limits = domain.resources?.limits?.memory;
  const pageSize = domain.memory?.hugepages?.pageSize;
  // Requests, then limits (a zero one counts as unset), then one hugepage.
  const guest =
    domain.memory?.guest ??
    (!isZero(requests) ? requests : !isZero(limits) ? limits : !isZero(pageSize) ? pageSize : undefined);
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

function defaultCpuTopology(vmi: VirtualMachineInstance): void {
  const domain = vmi.spec.domain;
  const cpu = (domain.cpu ??= {});
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

function defaultNetworks(vmi: VirtualMachineInstance): void {
  const devices = vmi.spec.domain.devices;
  // autoattachPodInterface (default on): a VMI with no interfaces and no networks gets the pod network.
  if (!devices.interfaces?.length && !vmi.spec.networks?.length && devices.autoattachPodInterface !== false) {
    devices.interfaces = [{ name: 'default', masquerade: {} }];
    vmi.spec.networks = [{ name: 'default', pod: {} }];
  }
}

function defaultMachine(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  const domain = vmi.spec.domain;
  domain.machine ??= {};
  domain.machine.type ||= arch.defaultMachine;
}

/**
 * Applies the API's defaults in place, in the order KubeVirt's mutating webhook runs them, and returns the
 * VMI. Left out on purpose: the cluster-configured ones (eviction strategy, a cluster CPU model or
 * request) and CPU hot-plug's maxSockets (see README, "API defaults").
 */
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
  // The VMI spec defaults.
  defaultMachine(vmi, arch);
  defaultResourceRequests(vmi);
  defaultMemory(vmi, arch);
  defaultCpuTopology(vmi);
  defaultPullPolicies(vmi);
  defaultNetworks(vmi);
  defaultVolumeDisks(vmi);
  // Then features (s390x first), the API types' own defaults, Hyper-V needs, the architecture's.
  applyArchFeatureDefaults(vmi, arch);
  applyApiTypeDefaults(vmi, firmwareUuid(vmi));
  applyHypervDependencies(vmi);
  applyArchDefaults(vmi, arch);
  return vmi;
}
