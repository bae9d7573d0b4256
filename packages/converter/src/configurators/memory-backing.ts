// <memoryBacking>: hugepages, memfd source, shared access (virtiofs needs it).
import type { Configurator } from './configurator.js';

export const memoryBacking: Configurator = {
  name: 'memory-backing',
  configure(vmi, domain, ctx) {
    const hugepages = vmi.spec.domain.memory?.hugepages !== undefined;
    const shared = (vmi.spec.domain.devices.filesystems ?? []).some((f) => f.virtiofs);
    if (!hugepages && !shared && !ctx.memfdRequired) return;
    domain.memoryBacking = {
      hugepages: hugepages || undefined,
      sourceMemfd: ctx.memfdRequired || undefined,
      accessShared: shared || undefined,
    };
  },
};
