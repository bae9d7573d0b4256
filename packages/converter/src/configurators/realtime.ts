// Realtime vCPUs (spec.domain.cpu.realtime). KubeVirt's node agent switches the masked vCPU threads to
// SCHED_FIFO priority 1 after QEMU starts; this launcher has no node agent, so it asks libvirt for the
// same policy with <cputune><vcpusched>. Like KubeVirt's converter it also turns the guest PMU off, and
// admission's rules apply here: realtime needs dedicated CPUs and a passed-through NUMA topology (whose
// configurator adds <nosharepages/>).
import { ConversionError, quote } from '../errors.js';
import type { Configurator } from './configurator.js';

const FIELD = 'spec.domain.cpu.realtime.mask';

/**
 * The vCPUs a mask selects, of `count`: "0-2,5" enables, "^1" disables (a disable wins over any enable);
 * an empty mask selects every vCPU, a mask of only disables selects none.
 */
export function realtimeVcpus(mask: string | undefined, count: number): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (!mask) return all;
  const enabled = new Set<number>();
  const disabled = new Set<number>();
  for (const part of mask.split(',')) {
    const item = part.trim();
    let m: RegExpExecArray | null;
    if ((m = /^(\d+)-(\d+)$/.exec(item))) {
      const [from, to] = [Number(m[1]), Number(m[2])];
      if (from > to) throw new ConversionError(FIELD, mask, `range ${quote(item)} runs backwards`);
      for (let id = from; id <= to; id++) enabled.add(id);
    } else if ((m = /^(\d+)$/.exec(item))) {
      enabled.add(Number(m[1]));
    } else if ((m = /^\^(\d+)$/.exec(item))) {
      disabled.add(Number(m[1]));
    } else {
      throw new ConversionError(FIELD, mask, `${quote(item)} is none of N, N-M, ^N`);
    }
  }
  return all.filter((id) => enabled.has(id) && !disabled.has(id));
}

export const realtime: Configurator = {
  name: 'realtime',
  configure(vmi, domain, ctx) {
    const cpu = vmi.spec.domain.cpu;
    if (!cpu?.realtime) return;
    if (!cpu.dedicatedCpuPlacement || !domain.cputune) {
      throw new ConversionError(
        'spec.domain.cpu.dedicatedCpuPlacement',
        cpu.dedicatedCpuPlacement ?? false,
        'must be true when spec.domain.cpu.realtime is used',
      );
    }
    if (!cpu.numa?.guestMappingPassthrough) {
      throw new ConversionError(
        'spec.domain.cpu.numa.guestMappingPassthrough',
        undefined,
        'must be set when spec.domain.cpu.realtime is used',
      );
    }
    domain.features.pmu = 'off';
    const vcpus = realtimeVcpus(cpu.realtime.mask, ctx.vcpus);
    if (vcpus.length > 0) domain.cputune.vcpusched = { vcpus: vcpus.join(','), scheduler: 'fifo', priority: 1 };
  },
};
