// kvm when /dev/kvm is there; qemu (TCG) when it is not and emulation is allowed.
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
