// <clock>: offset and timers, only when the VMI asks for a clock.
import type { Clock } from '../domain/types.js';
import type { Timer } from '../vmi/types.js';
import type { Configurator } from './configurator.js';

function present(timer: Timer): 'yes' | 'no' {
  return timer.present === false ? 'no' : 'yes';
}

export const clock: Configurator = {
  name: 'clock',
  configure(vmi, domain) {
    const spec = vmi.spec.domain.clock;
    if (!spec) return;
    const out: Clock = { offset: 'utc', timers: [] };
    if (spec.timezone !== undefined) {
      out.offset = 'timezone';
      out.timezone = spec.timezone;
    } else {
      const seconds = spec.utc?.offsetSeconds;
      out.adjustment = seconds !== undefined ? String(seconds) : 'reset';
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
    domain.clock = out;
  },
};
