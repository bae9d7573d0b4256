// <clock>: offset and timers as the VMI asks for them, plus a fixed TSC rate when the guest needs one.
import type { Clock } from '../domain/types.js';
import type { Timer, VirtualMachineInstance } from '../vmi/types.js';
import type { Configurator } from './configurator.js';

function present(timer: Timer): 'yes' | 'no' {
  return timer.present === false ? 'no' : 'yes';
}

/**
 * A guest that sees an invariant TSC (invtsc required or forced) or uses Hyper-V reenlightenment must
 * keep the TSC rate it booted with, so the rate virt-controller found on the node is pinned.
 */
export function pinnedTscFrequency(vmi: VirtualMachineInstance): number | undefined {
  const hz = vmi.status?.topologyHints?.tscFrequency;
  if (hz === undefined || !(hz > 0)) return undefined;
  const invtsc = (vmi.spec.domain.cpu?.features ?? []).some(
    (f) => f.name === 'invtsc' && (f.policy === 'require' || f.policy === 'force'),
  );
  const reenlightenment = vmi.spec.domain.features?.hyperv?.reenlightenment?.enabled === true;
  return invtsc || reenlightenment ? hz : undefined;
}

function fromSpec(spec: NonNullable<VirtualMachineInstance['spec']['domain']['clock']>): Clock {
  const out: Clock = { timers: [] };
  // Only what the VMI says: a clock with nothing but timers gets no adjustment. (The offset is then
  // libvirt's default, utc; libvirt-compat writes it out because libvirt's schema requires it.)
  if (spec.utc) {
    out.offset = 'utc';
    const seconds = spec.utc.offsetSeconds;
    out.adjustment = seconds !== undefined ? String(seconds) : 'reset';
  } else if (spec.timezone !== undefined) {
    out.offset = 'timezone';
    out.timezone = spec.timezone;
  }
  const t = spec.timer ?? {};
  if (t.rtc)
    out.timers.push({
      name: 'rtc',
      tickpolicy: t.rtc.tickPolicy || undefined,
      present: present(t.rtc),
      track: t.rtc.track || undefined,
    });
  if (t.pit) out.timers.push({ name: 'pit', tickpolicy: t.pit.tickPolicy || undefined, present: present(t.pit) });
  if (t.kvm) out.timers.push({ name: 'kvmclock', present: present(t.kvm) });
  if (t.hpet) out.timers.push({ name: 'hpet', tickpolicy: t.hpet.tickPolicy || undefined, present: present(t.hpet) });
  if (t.hyperv) out.timers.push({ name: 'hypervclock', present: present(t.hyperv) });
  return out;
}

export const clock: Configurator = {
  name: 'clock',
  configure(vmi, domain) {
    const spec = vmi.spec.domain.clock;
    const out = spec ? fromSpec(spec) : undefined;
    const tsc = pinnedTscFrequency(vmi);
    if (tsc !== undefined) {
      const withTsc = out ?? { timers: [] };
      withTsc.timers.push({ name: 'tsc', frequency: tsc });
      domain.clock = withTsc;
      return;
    }
    if (out) domain.clock = out;
  },
};
