// Cross-architecture emulation (KubeVirt's CrossArchitectureVirtualization feature gate): a VMI whose
// spec.architecture is not the host's runs under TCG on that architecture's QEMU binary. KubeVirt's launcher
// passes --allow-cross-arch-emulation only when the gate is on; without it such a VMI is refused here, before any
// device is built for the wrong architecture.
import { ConversionError, quote } from '../errors.js';
import type { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import type { VirtualMachineInstance } from '../vmi/types.js';

/** The QEMU system emulator of each guest architecture, where KubeVirt's launcher image (and Debian) puts it. */
const EMULATORS: Record<string, string> = {
  amd64: '/usr/bin/qemu-system-x86_64',
  arm64: '/usr/bin/qemu-system-aarch64',
  s390x: '/usr/bin/qemu-system-s390x',
};

/** The QEMU binary that emulates a guest of `arch` (GOARCH spelling); undefined for one KubeVirt does not emulate. */
export function crossArchEmulator(arch: string): string | undefined {
  return EMULATORS[arch];
}

/** The emulated guest's architecture and QEMU binary, when the VMI is of another architecture than the host. */
export interface CrossArchGuest {
  arch: string;
  emulator: string;
}

/**
 * The guest to emulate when the VMI names an architecture other than `context.hostArchitecture` (no check when
 * either is empty, as in KubeVirt); undefined when it runs natively. Refuses such a VMI unless
 * `context.allowCrossArchEmulation` is set, and an architecture QEMU is not shipped for here.
 */
export function crossArchGuest(raw: ConverterContext, vmi: VirtualMachineInstance): CrossArchGuest | undefined {
  const host = raw.hostArchitecture;
  const guest = vmi.spec.architecture;
  if (!host || !guest || guest === host) return undefined;
  if (!raw.allowCrossArchEmulation) {
    throw new ConversionError(
      'spec.architecture',
      guest,
      `${quote(guest)} is not the host's architecture ${quote(host)}: cross-architecture emulation requires the CrossArchitectureVirtualization feature gate (virt-launcher --allow-cross-arch-emulation)`,
    );
  }
  const emulator = crossArchEmulator(guest);
  if (!emulator) {
    throw new ConversionError(
      'spec.architecture',
      guest,
      `unsupported guest architecture for cross-architecture emulation: ${quote(guest)} (amd64, arm64 or s390x)`,
    );
  }
  return { arch: guest, emulator };
}
