// kvm whenever /dev/kvm is there (even when emulation is allowed); qemu (TCG) only when it is not and emulation is
// allowed; an error otherwise. A missing device alone never selects emulation: the caller's allowEmulation decides.
import { ConversionError } from '../errors.js';
import type { Configurator } from './configurator.js';

export const hypervisor: Configurator = {
  name: 'hypervisor',
  configure(_vmi, domain, ctx) {
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
