// Dedicated CPU placement with the host NUMA cells in the context: the vCPUs follow the host's cells
// (relaxed pool), and guest NUMA passthrough refuses a guest core that would span two host cells.
import { describe, expect, it } from 'vitest';
import { ConversionError } from '../errors.js';
import { run, vmi } from '../testing/fixture.js';
import type { DomainSpec } from '../vmi/types.js';
import { cpuPinning } from './cpu-pinning.js';

const cells = [
  { id: 0, cpus: [4, 0, 2], distances: {}, cpuSiblings: [] },
  { id: 1, cpus: [5, 1, 3], distances: {}, cpuSiblings: [] },
];

function pins(domain: Partial<DomainSpec>, cpuSet: number[]) {
  return run(cpuPinning, vmi(domain), { cpuSet, hostNumaNodes: cells }).cputune?.vcpupins.map((p) => p.cpuset);
}

describe('dedicated CPU placement on the host NUMA cells', () => {
  it('vCPUs take the host cells’ CPUs in the host’s order', () => {
    expect(pins({ cpu: { cores: 4, dedicatedCpuPlacement: true } }, [0, 1, 2, 3, 4, 5])).toEqual(['4', '0', '2', '5']);
  });
  it('relaxed: a 2-thread guest core may span the two cells', () => {
    const cpu = { cores: 3, threads: 2, dedicatedCpuPlacement: true };
    expect(pins({ cpu }, [0, 1, 2, 3, 4, 5])).toEqual(['4', '0', '5', '1', '2', '3']);
  });
  it('guest NUMA passthrough refuses a guest core across host cells, naming context.hostNumaNodes', () => {
    const cpu = { cores: 3, threads: 2, dedicatedCpuPlacement: true, numa: { guestMappingPassthrough: {} } };
    let err: unknown;
    try {
      pins({ cpu }, [0, 1, 2, 3, 4, 5]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConversionError);
    expect(String((err as Error).message)).toMatch(/context\.hostNumaNodes|crossing host NUMA cells/);
  });
  it('CPUs of the set outside every host cell are never pinned', () => {
    expect(() => pins({ cpu: { cores: 2, dedicatedCpuPlacement: true } }, [8, 9])).toThrow(ConversionError);
  });
});

describe('dedicated CPU placement on host thread siblings', () => {
  it('a 2-thread guest core takes the two siblings of one host core', () => {
    // Host cores {0,2} and {1,3} in one cell: the guest's core 0 must be 0 and 2, not 0 and 1.
    const node = {
      id: 0,
      cpus: [0, 1, 2, 3],
      distances: {},
      cpuSiblings: [
        { cpu: 0, siblings: [0, 2] },
        { cpu: 2, siblings: [0, 2] },
        { cpu: 1, siblings: [1, 3] },
        { cpu: 3, siblings: [1, 3] },
      ],
    };
    const v = vmi({ cpu: { cores: 2, threads: 2, dedicatedCpuPlacement: true } });
    const tune = run(cpuPinning, v, { cpuSet: [0, 1, 2, 3], hostNumaNodes: [node] }).cputune;
    expect(tune?.vcpupins.map((p) => p.cpuset)).toEqual(['0', '2', '1', '3']);
  });
});
