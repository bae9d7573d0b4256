import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { balloon } from './balloon.js';

describe('balloon', () => {
  it('model none when autoattach is off', () => {
    expect(run(balloon, vmi({ devices: { autoattachMemBalloon: false } })).devices.memballoon).toEqual({
      model: 'none',
    });
  });
  it('stats period and free page reporting from the context', () => {
    expect(
      run(balloon, vmi(), { memBalloonStatsPeriod: 10, freePageReporting: true }).devices.memballoon,
    ).toMatchObject({
      model: 'virtio-non-transitional',
      freePageReporting: 'on',
      statsPeriod: 10,
    });
    expect(run(balloon, vmi()).devices.memballoon?.statsPeriod).toBeUndefined();
  });
});
