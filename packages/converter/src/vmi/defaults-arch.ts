// KubeVirt's per-architecture webhook defaults (its pkg/defaults amd64/arm64/s390x files): disk bus,
// watchdog model, arm64's CPU model and UEFI boot, s390x's ACPI off. Only unset fields are filled.
import type { ArchFacts } from '../context/arch.js';
import type { VirtualMachineInstance } from './types.js';

/** s390x has no ACPI: switch it off unless the VMI says otherwise (runs before the API type defaults). */
export function applyArchFeatureDefaults(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  if (arch.arch !== 's390x') return;
  const features = (vmi.spec.domain.features ??= {});
  features.acpi ??= {};
  features.acpi.enabled ??= false;
}

function defaultDiskBus(vmi: VirtualMachineInstance, bus: string): void {
  for (const disk of vmi.spec.domain.devices.disks ?? []) {
    for (const device of [disk.disk, disk.lun, disk.cdrom]) if (device && !device.bus) device.bus = bus;
  }
}

/** amd64 and s390x turn a watchdog without a model into their own model, with action reset. */
function defaultWatchdog(vmi: VirtualMachineInstance, model: 'i6300esb' | 'diag288'): void {
  const watchdog = vmi.spec.domain.devices.watchdog;
  if (!watchdog) return;
  const device = (watchdog[model] ??= {});
  device.action ||= 'reset';
}

function defaultArm64Boot(vmi: VirtualMachineInstance): void {
  const firmware = (vmi.spec.domain.firmware ??= {});
  // Only EFI boots an arm64 guest: a VMI without a bootloader gets EFI, and EFI without secure boot.
  firmware.bootloader ??= { efi: {} };
  const efi = firmware.bootloader.efi;
  if (efi) efi.secureBoot ??= false;
}

/** Architecture defaults, then the CPU model (the cluster's default: host-model; arm64 host-passthrough). */
export function applyArchDefaults(vmi: VirtualMachineInstance, arch: ArchFacts): void {
  if (arch.arch === 'arm64') {
    defaultArm64Boot(vmi);
  } else {
    defaultWatchdog(vmi, arch.arch === 's390x' ? 'diag288' : 'i6300esb');
  }
  defaultDiskBus(vmi, arch.defaultDiskBus);
  const cpu = (vmi.spec.domain.cpu ??= {});
  cpu.model ||= arch.defaultCpuMode;
}
