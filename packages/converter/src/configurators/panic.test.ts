import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { panic } from './panic.js';

describe('panic', () => {
  it('one device per entry', () => {
    expect(
      run(panic, vmi({ devices: { panicDevices: [{ model: 'hyperv' }, { model: 'isa' }] } })).devices.panics,
    ).toEqual([{ model: 'hyperv' }, { model: 'isa' }]);
  });
});
