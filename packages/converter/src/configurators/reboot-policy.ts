// What a guest reboot does: Terminate destroys the domain so the VMI ends.
import type { Configurator } from './configurator.js';

export const rebootPolicy: Configurator = {
  name: 'reboot-policy',
  configure(vmi, domain) {
    const policy = vmi.spec.domain.rebootPolicy;
    if (policy === 'Terminate') domain.onReboot = 'destroy';
    else if (policy === 'Reboot') domain.onReboot = 'restart';
  },
};
