import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { tpm } from './tpm.js';

describe('tpm', () => {
  it('adds tpm-tis, tpm-crb with persistent state, nothing when disabled', () => {
    expect(run(tpm, vmi({ devices: { tpm: {} } })).devices.tpms).toEqual([{ model: 'tpm-tis' }]);
    expect(run(tpm, vmi({ devices: { tpm: { persistent: true } } })).devices.tpms).toEqual([
      { model: 'tpm-crb', persistentState: true },
    ]);
    expect(run(tpm, vmi({ devices: { tpm: { enabled: false } } })).devices.tpms).toEqual([]);
  });
});
