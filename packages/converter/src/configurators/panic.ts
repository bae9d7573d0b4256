// Panic notifier devices, one per spec entry.
import type { Configurator } from './configurator.js';

export const panic: Configurator = {
  name: 'panic',
  configure(vmi, domain) {
    for (const device of vmi.spec.domain.devices.panicDevices ?? []) {
      if (device.model) domain.devices.panics.push({ model: device.model });
    }
  },
};
