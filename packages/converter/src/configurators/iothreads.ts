// <iothreads>: the total the plan computed (disk ids are assigned by the disks configurator).
import type { Configurator } from './configurator.js';

export const iothreads: Configurator = {
  name: 'iothreads',
  configure(_vmi, domain, ctx) {
    if (ctx.ioThreads.total > 0) domain.iothreads = ctx.ioThreads.total;
  },
};
