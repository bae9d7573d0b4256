import { describe, expect, it } from 'vitest';
import { emptyDomain } from '../domain/types.js';
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
  it('libvirt 9.0: a disk takes one supplemental pool thread round-robin, nvram loses format raw', () => {
    const d = emptyDomain();
    for (let i = 0; i < 3; i++) {
      d.devices.disks.push({
        device: 'disk',
        type: 'file',
        source: {},
        target: { bus: 'virtio', dev: `vd${i}` },
        driver: { name: 'qemu', iothreads: [1, 2] },
      });
    }
    d.os.nvram = { format: 'raw', path: '/n/vm_VARS.fd' };
    run(libvirtCompat, vmi(), { libvirtVersion: '9.0.0' }, d);
    expect(d.devices.disks.map((x) => [x.driver.iothread, x.driver.iothreads])).toEqual([
      [1, undefined],
      [2, undefined],
      [1, undefined],
    ]);
    expect(d.os.nvram).toEqual({ format: undefined, path: '/n/vm_VARS.fd' });
  });
  it('a clock without offset gets utc (the schema needs it), never an adjustment', () => {
    const d = emptyDomain();
    d.clock = { timers: [{ name: 'rtc', present: 'yes' }] };
    run(libvirtCompat, vmi(), {}, d);
    expect(d.clock).toEqual({ offset: 'utc', timers: [{ name: 'rtc', present: 'yes' }] });
  });
});
