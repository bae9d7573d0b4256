import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { clock } from './clock.js';

describe('clock', () => {
  it('is absent without a spec clock', () => {
    expect(run(clock, vmi()).clock).toBeUndefined();
  });
  it('utc with an offset, timers in KubeVirt order', () => {
    const d = run(
      clock,
      vmi({
        clock: {
          utc: { offsetSeconds: 30 },
          timer: { hyperv: {}, rtc: { tickPolicy: 'catchup' }, pit: { present: false } },
        },
      }),
    );
    expect(d.clock?.adjustment).toBe('30');
    expect(d.clock?.timers.map((t) => `${t.name}:${t.present}`)).toEqual(['rtc:yes', 'pit:no', 'hypervclock:yes']);
  });
  it('timezone offset', () => {
    expect(run(clock, vmi({ clock: { timezone: 'Europe/Paris' } })).clock).toMatchObject({
      offset: 'timezone',
      timezone: 'Europe/Paris',
    });
  });
  it('a clock with only an RTC timer gets no offset or adjustment the VMI did not ask for', () => {
    const c = run(clock, vmi({ clock: { timer: { rtc: { tickPolicy: 'catchup', track: 'guest' } } } })).clock;
    expect(c?.offset).toBeUndefined();
    expect(c?.adjustment).toBeUndefined();
    expect(c?.timers).toEqual([{ name: 'rtc', tickpolicy: 'catchup', present: 'yes', track: 'guest' }]);
  });
  it('utc without offsetSeconds resets the guest clock', () => {
    expect(run(clock, vmi({ clock: { utc: {} } })).clock).toMatchObject({ offset: 'utc', adjustment: 'reset' });
  });
  it('a required invtsc with a TSC hint pins the TSC frequency, even without a spec clock', () => {
    const v = vmi({ cpu: { features: [{ name: 'invtsc', policy: 'require' }] } });
    v.status = { topologyHints: { tscFrequency: 2_100_000_000 } };
    expect(run(clock, v).clock).toEqual({ timers: [{ name: 'tsc', frequency: 2_100_000_000 }] });
    v.spec.domain.clock = { utc: {}, timer: { hpet: { present: false } } };
    expect(run(clock, v).clock?.timers.map((t) => t.name)).toEqual(['hpet', 'tsc']);
  });
  it('no TSC timer without a hint, or when invtsc is only optional', () => {
    const hinted = vmi({ cpu: { features: [{ name: 'invtsc', policy: 'optional' }] } });
    hinted.status = { topologyHints: { tscFrequency: 1000 } };
    expect(run(clock, hinted).clock).toBeUndefined();
    expect(run(clock, vmi({ cpu: { features: [{ name: 'invtsc', policy: 'require' }] } })).clock).toBeUndefined();
  });
});
