// <memoryBacking>: hugepages, memfd source, shared access (virtiofs and passt need it).
import { usesPasst } from '../context/plan.js';
import type { Configurator } from './configurator.js';

export const memoryBacking: Configurator = {
  name: 'memory-backing',
  configure(vmi, domain, ctx) {
    const hugepages = vmi.spec.domain.memory?.hugepages !== undefined;
    // virtiofsd and passt's vhost-user back end both map guest memory: it must be shared.
    const shared = (vmi.spec.domain.devices.filesystems ?? []).some((f) => f.virtiofs) || usesPasst(vmi);
    if (!hugepages && !shared && !ctx.memfdRequired) return;
    domain.memoryBacking = {
      hugepages: hugepages || undefined,
      sourceMemfd: ctx.memfdRequired || undefined,
      accessShared: shared || undefined,
    };
  },
};
