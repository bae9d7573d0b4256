// Memory balloon with statistics and free page reporting, or an explicit "none".
import type { Configurator } from './configurator.js';

export const balloon: Configurator = {
  name: 'balloon',
  configure(vmi, domain, ctx) {
    if (vmi.spec.domain.devices.autoattachMemBalloon === false) {
      domain.devices.memballoon = { model: 'none' };
      return;
    }
    const period = ctx.raw.memBalloonStatsPeriod;
    domain.devices.memballoon = {
      model: ctx.virtioModel,
      freePageReporting: ctx.raw.freePageReporting ? 'on' : 'off',
      statsPeriod: period !== 0 ? period : undefined,
      iommu: ctx.launchSecurity ? 'on' : undefined,
    };
  },
};
