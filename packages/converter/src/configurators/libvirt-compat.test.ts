import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { cpu } from './cpu.js';
import { libvirtCompat } from './libvirt-compat.js';
import { memory } from './memory.js';

function build(libvirtVersion?: string) {
  const v = vmi({ cpu: { cores: 2 }, memory: { guest: '2Gi', maxGuest: '8Gi' } });
  const ctx = libvirtVersion ? { libvirtVersion } : {};
  return run(libvirtCompat, v, ctx, run(memory, v, ctx, run(cpu, v, ctx)));
}

describe('libvirt compat', () => {
  it('libvirt 9.0: one memory slot and a NUMA cell for memory hot-plug', () => {
    const d = build('9.0.0');
    expect(d.maxMemory).toEqual({ bytes: 8589934592n, slots: 1 });
    expect(d.cpu?.numaCells).toEqual([{ id: 0, cpus: '0-1', memoryKiB: 2097152n }]);
  });
  it('newer or unknown libvirt: KubeVirt shape unchanged', () => {
    for (const d of [build('10.5.0'), build()]) {
      expect(d.maxMemory?.slots).toBe(0);
      expect(d.cpu?.numaCells).toEqual([]);
    }
  });
});
