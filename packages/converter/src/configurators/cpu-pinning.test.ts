import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import type { Disk, DomainSpec } from '../vmi/types.js';
import { cpuPinning, EVEN_PARITY_ANNOTATION } from './cpu-pinning.js';
import { disks } from './disks.js';
import { iothreads } from './iothreads.js';

function tune(domain: Partial<DomainSpec>, cpuSet: number[], annotations?: Record<string, string>) {
  const v = vmi(domain);
  if (annotations) v.metadata.annotations = annotations;
  const volumes = (domain.devices?.disks ?? []).map((d: Disk) => ({ name: d.name, emptyDisk: { capacity: '1Gi' } }));
  v.spec.volumes = volumes;
  const d = run(iothreads, v, { cpuSet }, run(disks, v, { cpuSet }));
  return run(cpuPinning, v, { cpuSet }, d).cputune;
}

describe('dedicated CPU placement', () => {
  it('no <cputune> without dedicatedCpuPlacement', () => {
    expect(tune({ cpu: { cores: 2 } }, [4, 5])).toBeUndefined();
  });
  it('vCPU i takes the i-th lowest CPU of the set', () => {
    expect(tune({ cpu: { cores: 2, threads: 2, dedicatedCpuPlacement: true } }, [9, 3, 7, 5])).toEqual({
      vcpupins: [
        { vcpu: 0, cpuset: '3' },
        { vcpu: 1, cpuset: '5' },
        { vcpu: 2, cpuset: '7' },
        { vcpu: 3, cpuset: '9' },
      ],
      iothreadpins: [],
    });
  });
  it('isolateEmulatorThread takes the next CPU (two with even parity); the one IOThread shares it', () => {
    const cpu = { cores: 2, dedicatedCpuPlacement: true, isolateEmulatorThread: true };
    const devices = { disks: [{ name: 'a', disk: { bus: 'virtio' } }] };
    const t = tune({ cpu, devices, ioThreadsPolicy: 'auto' }, [1, 2, 3, 4]);
    expect(t?.emulatorpin).toBe('3');
    expect(t?.iothreadpins).toEqual([{ iothread: 1, cpuset: '3' }]);
    expect(tune({ cpu }, [1, 2, 3, 4], { [EVEN_PARITY_ANNOTATION]: '' })?.emulatorpin).toBe('3,4');
  });
  it('the supplemental pool gets spare CPUs before the emulator thread', () => {
    const t = tune(
      {
        cpu: { cores: 1, dedicatedCpuPlacement: true, isolateEmulatorThread: true },
        ioThreadsPolicy: 'supplementalPool',
        ioThreads: { supplementalPoolThreadCount: 2 },
      },
      [10, 11, 12, 13],
    );
    expect(t?.iothreadpins).toEqual([
      { iothread: 1, cpuset: '11' },
      { iothread: 2, cpuset: '12' },
    ]);
    expect(t?.emulatorpin).toBe('13');
  });
  it('shared IOThreads spread over the vCPUs’ CPUs in balanced slices', () => {
    // Two dedicated threads plus the one shared thread KubeVirt always keeps: 3 IOThreads.
    const list: Disk[] = [1, 2, 3].map((i) => ({ name: `d${i}`, disk: { bus: 'virtio' }, dedicatedIOThread: i < 3 }));
    const t = tune(
      { cpu: { cores: 8, dedicatedCpuPlacement: true }, devices: { disks: list } },
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
    expect(t?.iothreadpins).toEqual([
      { iothread: 1, cpuset: '0,1,2' },
      { iothread: 2, cpuset: '3,4,5' },
      { iothread: 3, cpuset: '6,7' },
    ]);
  });
  it('too few CPUs, or none, is an error naming context.cpuSet', () => {
    expect(() => tune({ cpu: { cores: 4, dedicatedCpuPlacement: true } }, [1, 2])).toThrow(
      '4 vCPUs need 4 exclusive CPUs',
    );
    expect(() => tune({ cpu: { cores: 1, dedicatedCpuPlacement: true } }, [])).toThrow('context.cpuSet');
    expect(() => tune({ cpu: { cores: 2, dedicatedCpuPlacement: true, isolateEmulatorThread: true } }, [1, 2])).toThrow(
      'emulator thread',
    );
  });
});
