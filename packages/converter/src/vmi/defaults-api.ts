// The defaults KubeVirt's API types declare for themselves (its generated object defaulter, run by the
// mutating webhook on every VMI): a features and a firmware object where none is given, every feature and
// timer switch "on" when it is present without a value, a disk device per disk, CD-ROM and input
// defaults, probe thresholds. Each step only fills what is unset, so running it twice changes nothing.
import type { Disk, Features, Probe, Toggle, VirtualMachineInstance } from './types.js';

/** A switch that is present without `enabled` means on. */
function switchOn(toggle: Toggle | undefined): void {
  if (toggle && toggle.enabled === undefined) toggle.enabled = true;
}

/** Hyper-V spinlocks: on by default, 4096 retries when on. */
const SPINLOCK_RETRIES = 4096;

function defaultFeatureStates(features: Features): void {
  // ACPI is not a pointer in KubeVirt's Features: it always exists, so unset means on (s390x's
  // architecture defaults have already switched it off there).
  features.acpi ??= {};
  switchOn(features.acpi);
  switchOn(features.apic);
  switchOn(features.smm);
  switchOn(features.pvspinlock);
  const h = features.hyperv;
  if (!h) return;
  if (h.spinlocks) {
    switchOn(h.spinlocks);
    if (h.spinlocks.enabled && h.spinlocks.spinlocks === undefined) h.spinlocks.spinlocks = SPINLOCK_RETRIES;
  }
  for (const toggle of [
    h.relaxed,
    h.vapic,
    h.vpindex,
    h.runtime,
    h.synic,
    h.synictimer,
    h.synictimer?.direct,
    h.reset,
    h.vendorid,
    h.frequencies,
    h.reenlightenment,
    h.tlbflush,
    h.tlbflush?.direct,
    h.tlbflush?.extended,
    h.ipi,
    h.evmcs,
  ]) {
    switchOn(toggle);
  }
}

function defaultTimers(vmi: VirtualMachineInstance): void {
  const timer = vmi.spec.domain.clock?.timer;
  if (!timer) return;
  // Timers spell their switch `present`; a timer listed without it is present.
  for (const t of [timer.hpet, timer.kvm, timer.pit, timer.rtc, timer.hyperv]) {
    if (t && t.present === undefined) t.present = true;
  }
}

function defaultDiskDevice(disk: Disk): void {
  if (!disk.disk && !disk.lun && !disk.cdrom) disk.disk = {};
  if (disk.cdrom) {
    disk.cdrom.readonly ??= true;
    disk.cdrom.tray ||= 'closed';
  }
  switchOn(disk.blockSize?.matchVolume);
}

function defaultInputs(vmi: VirtualMachineInstance): void {
  for (const input of vmi.spec.domain.devices.inputs ?? []) {
    input.bus ||= 'usb';
    input.type ||= 'tablet';
  }
}

function defaultGpus(vmi: VirtualMachineInstance): void {
  for (const gpu of vmi.spec.domain.devices.gpus ?? []) switchOn(gpu.virtualGPUOptions?.display?.ramFB);
}

/** Kubernetes' probe thresholds: a value below 1 takes the default. */
function defaultProbe(probe: Probe | undefined): void {
  if (!probe) return;
  if (!((probe.timeoutSeconds ?? 0) >= 1)) probe.timeoutSeconds = 1;
  if (!((probe.periodSeconds ?? 0) >= 1)) probe.periodSeconds = 10;
  if (!((probe.successThreshold ?? 0) >= 1)) probe.successThreshold = 1;
  if (!((probe.failureThreshold ?? 0) >= 1)) probe.failureThreshold = 3;
}

/**
 * KubeVirt's SetObjectDefaults for a VMI. `firmwareUuid` stands in for the random UUID the API would
 * draw (see defaults.ts for why ours is derived from the name).
 */
export function applyApiTypeDefaults(vmi: VirtualMachineInstance, firmwareUuid: () => string): void {
  const domain = vmi.spec.domain;
  domain.firmware ??= {};
  domain.firmware.uuid ||= firmwareUuid();
  domain.features ??= {};
  defaultFeatureStates(domain.features);
  defaultTimers(vmi);
  for (const disk of domain.devices.disks ?? []) defaultDiskDevice(disk);
  defaultInputs(vmi);
  defaultGpus(vmi);
  defaultProbe(vmi.spec.readinessProbe);
  defaultProbe(vmi.spec.livenessProbe);
}
