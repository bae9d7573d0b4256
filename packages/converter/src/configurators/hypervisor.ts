// kvm whenever /dev/kvm is there (even when emulation is allowed); qemu (TCG) only when it is not and emulation is
// allowed; an error otherwise. A missing device alone never selects emulation: the caller's allowEmulation decides.
// A guest of another architecture (cross-architecture emulation) is always TCG on its architecture's QEMU binary,
// whatever allowEmulation says: KVM cannot run it.
import { ConversionError } from '../errors.js';
import type { Configurator } from './configurator.js';

export const hypervisor: Configurator = {
  name: 'hypervisor',
  configure(_vmi, domain, ctx) {
    if (ctx.crossArch) {
      domain.type = 'qemu';
      domain.devices.emulator = ctx.crossArch.emulator;
      return;
    }
    if (ctx.hypervisorDeviceAvailable) {
      domain.type = 'kvm';
      return;
    }
    if (!ctx.allowEmulation) {
      throw new ConversionError('context.allowEmulation', false, 'kvm not present and emulation is not allowed');
    }
    domain.type = 'qemu';
  },
};
