// virtio RNG fed from the host's /dev/urandom.
import type { Configurator } from './configurator.js';

export const rng: Configurator = {
  name: 'rng',
  configure(vmi, domain, ctx) {
    if (!vmi.spec.domain.devices.rng) return;
    domain.devices.rng = {
      model: ctx.virtioModel,
      backend: '/dev/urandom',
      iommu: ctx.launchSecurity ? 'on' : undefined,
    };
  },
};
