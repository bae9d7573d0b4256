import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import type { Disk } from '../vmi/types.js';
import { disks } from './disks.js';
import { iothreads } from './iothreads.js';

function seven(): Disk[] {
  const list: Disk[] = [
    { name: 'd0', disk: { bus: 'virtio' }, dedicatedIOThread: true },
    { name: 'd1', disk: { bus: 'virtio' }, dedicatedIOThread: false },
  ];
  for (let i = 2; i < 7; i++) list.push({ name: `d${i}`, disk: { bus: 'virtio' } });
  return list;
}

describe('iothreads (KubeVirt table)', () => {
  // converter_test.go (KubeVirt v1.9.0), "Should use correct IOThreads policies": the CPUs are the
  // CPU request, which bounds the auto pool (iothreads/iothreads.go, getThreadPoolLimit).
  it.each([
    ['shared', 1, 2, [2, 1, 1, 1, 1, 1, 1]],
    ['auto', 3, 6, [6, 1, 2, 3, 4, 5, 1]],
    ['auto', 4, 7, [7, 1, 2, 3, 4, 5, 6]],
    ['auto', 5, 7, [7, 1, 2, 3, 4, 5, 6]],
  ])('policy %s with %i CPUs -> %i threads, ids %j', (policy, cpus, total, ids) => {
    const v = vmi(
      {
        ioThreadsPolicy: policy,
        resources: { requests: { memory: '1Gi', cpu: String(cpus) } },
        devices: { disks: seven() },
      },
      { volumes: seven().map((d) => ({ name: d.name, emptyDisk: { capacity: '1Gi' } })) },
    );
    const d = run(disks, v);
    run(iothreads, v, {}, d);
    expect(d.iothreads).toBe(total);
    expect(d.devices.disks.map((disk) => disk.driver.iothread)).toEqual(ids);
  });
  it('no iothreads without a policy or dedicated disks', () => {
    expect(run(iothreads, vmi()).iothreads).toBeUndefined();
  });
  it('supplementalPool: every virtio disk lists all pool threads, other buses none', () => {
    const list: Disk[] = [
      { name: 'a', disk: { bus: 'virtio' } },
      { name: 'b', disk: { bus: 'sata' } },
    ];
    const v = vmi(
      { ioThreadsPolicy: 'supplementalPool', ioThreads: { supplementalPoolThreadCount: 3 }, devices: { disks: list } },
      { volumes: list.map((d) => ({ name: d.name, emptyDisk: { capacity: '1Gi' } })) },
    );
    const d = run(disks, v);
    run(iothreads, v, {}, d);
    expect(d.iothreads).toBe(3);
    expect(d.devices.disks.map((disk) => disk.driver.iothreads)).toEqual([[1, 2, 3], undefined]);
    expect(d.devices.disks.map((disk) => disk.driver.iothread)).toEqual([undefined, undefined]);
  });
});
