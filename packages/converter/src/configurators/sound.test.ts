import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { sound } from './sound.js';

describe('sound', () => {
  it('ich9 by default, ac97 on request, other models rejected', () => {
    expect(run(sound, vmi({ devices: { sound: { name: 's' } } })).devices.sounds).toEqual([
      { model: 'ich9', alias: { name: 'ua-s' } },
    ]);
    expect(run(sound, vmi({ devices: { sound: { name: 's', model: 'ac97' } } })).devices.sounds[0]?.model).toBe('ac97');
    expect(() => run(sound, vmi({ devices: { sound: { name: 's', model: 'sb16' } } }))).toThrow(
      'spec.domain.devices.sound.model',
    );
  });
});
