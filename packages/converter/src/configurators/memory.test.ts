import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { memory } from './memory.js';

describe('memory', () => {
  it('guest from memory.guest, else the request, in bytes', () => {
    expect(run(memory, vmi({ resources: { requests: { memory: '8192Ki' } } })).memoryBytes).toBe(8388608n);
    expect(run(memory, vmi({ memory: { guest: '1.5Gi' } })).memoryBytes).toBe(1610612736n);
  });
  it('maxGuest above guest -> maxMemory (KubeVirt writes slots 0)', () => {
    expect(run(memory, vmi({ memory: { guest: '2Gi', maxGuest: '8Gi' } })).maxMemory).toEqual({
      bytes: 8589934592n,
      slots: 0,
    });
    expect(run(memory, vmi({ memory: { guest: '2Gi', maxGuest: '2Gi' } })).maxMemory).toBeUndefined();
  });
  it('errors name the field and the value', () => {
    expect(() => run(memory, vmi({ memory: { guest: '2Gx' } }))).toThrow(
      'spec.domain.memory.guest: "2Gx" is not a quantity',
    );
    expect(() => run(memory, vmi({ memory: { guest: '2Gi', maxGuest: '1Gi' } }))).toThrow(
      'spec.domain.memory.maxGuest',
    );
  });
});
