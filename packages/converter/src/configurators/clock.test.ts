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
});
