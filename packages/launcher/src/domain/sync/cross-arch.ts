// Cross-architecture emulation (KubeVirt's CrossArchitectureVirtualization feature gate, which makes virt-controller
// pass --allow-cross-arch-emulation): the converter context fields the flag decides, as KubeVirt's domain manager
// sets them, and the check KubeVirt's converter makes that the foreign architecture's QEMU is installed.
import { stat } from 'node:fs/promises';
import { crossArchEmulator, type ConverterContext } from '../../adapters/converter.js';
import { InvalidRequestError } from '../../errors.js';

export type CrossArchFields = Pick<ConverterContext, 'architecture' | 'hostArchitecture' | 'allowCrossArchEmulation'>;

/**
 * The host's architecture always; with the flag, a VMI of another architecture is built for its own (the converter
 * then emulates it). Without the flag such a VMI keeps the host's architecture and the converter refuses it.
 */
export function crossArchFields(hostArch: string, vmiArch: string | undefined, allowed: boolean): CrossArchFields {
  const emulated = allowed && vmiArch !== undefined && vmiArch !== hostArch;
  return {
    architecture: emulated ? vmiArch : hostArch,
    hostArchitecture: hostArch,
    allowCrossArchEmulation: emulated,
  };
}

async function fileExists(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/**
 * Refuses an emulated VMI whose emulator is missing before libvirt is asked to define it (KubeVirt's converter makes
 * the same check, with the same words). An architecture without an emulator is left to the converter's refusal.
 */
export async function checkCrossArchEmulator(
  context: Pick<ConverterContext, 'architecture' | 'allowCrossArchEmulation'>,
  exists: (path: string) => Promise<boolean> = fileExists,
): Promise<void> {
  if (!context.allowCrossArchEmulation || !context.architecture) return;
  const emulator = await crossArchEmulator(context.architecture);
  if (emulator && !(await exists(emulator))) {
    throw new InvalidRequestError(`required emulator binary not found: ${emulator}`, 'spec.architecture');
  }
}
