// The CPU pool against the cases of KubeVirt v1.9's pool tests
// (pkg/virt-launcher/virtwrap/converter/vcpu/vcpu_test.go, lines 22–180): the same host layouts, CPU sets
// and expected vCPU → host thread orders, rebuilt here from the facts (see testdata/kubevirt/COVERAGE-vcpu.md).
import { describe, expect, it } from 'vitest';
import { CpuPool, CpuPoolError, type PoolCell } from './cpu-pool.js';

/** A host of `cellCount` cells whose threads come `perCore` siblings at a time, cells filled in order. */
function host(cellCount: number, perCore: number, threads: number[]): PoolCell[] {
  const cells: PoolCell[] = Array.from({ length: cellCount }, () => ({ cpus: [] }));
  let perCell = Math.floor(threads.length / cellCount);
  perCell -= perCell % perCore;
  let cell = 0;
  let assigned = 0;
  for (let i = 0; i < threads.length; i += perCore) {
    const siblings = threads.slice(i, i + perCore);
    for (const id of siblings) {
      cells[cell]!.cpus.push({ id, siblings });
      assigned++;
    }
    if (assigned >= perCell) {
      assigned = 0;
      cell = (cell + 1) % cellCount;
    }
  }
  return cells;
}

/** The CPU set in a different order each time: the result must follow the host's order, not the set's. */
function shuffled(cpus: number[], seed: number): number[] {
  const out = [...cpus];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const THREADS = [1, 7, 0, 6, 2, 8, 3, 9, 4, 10, 5, 11];
const ALL = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

// [host threads per core, cells, guest cores, guest threads per core, expected order (default: THREADS)]
type Row = [number, number, number, number, number[]?];
const BOTH: Row[] = [
  [1, 1, 12, 1],
  [1, 2, 12, 1],
  [1, 3, 12, 1],
  [1, 4, 12, 1],
  [1, 1, 6, 2],
  [1, 2, 6, 2],
  [1, 3, 6, 2],
  [1, 1, 4, 3],
  [1, 2, 4, 3],
  [2, 1, 12, 1],
  [2, 2, 12, 1],
  [2, 3, 12, 1],
  [2, 4, 12, 1, [1, 7, 4, 10, 0, 6, 5, 11, 2, 8, 3, 9]],
  [2, 1, 6, 2],
  [2, 2, 6, 2],
  [2, 3, 6, 2],
  [2, 1, 4, 3],
  [2, 2, 4, 3],
  [3, 1, 12, 1],
  [3, 2, 12, 1],
  [3, 3, 12, 1, [1, 7, 0, 10, 5, 11, 6, 2, 8, 3, 9, 4]],
  [3, 4, 12, 1],
  [3, 1, 6, 2, [1, 7, 6, 2, 3, 9, 10, 5, 0, 8, 4, 11]],
  [3, 2, 6, 2, [1, 7, 6, 2, 3, 9, 10, 5, 0, 8, 4, 11]],
  [3, 1, 4, 3],
  [3, 2, 4, 3],
  [3, 3, 4, 3, [1, 7, 0, 10, 5, 11, 6, 2, 8, 3, 9, 4]],
];
// Only the relaxed pool places these: some guest core has to span two host cells.
const RELAXED_ONLY: Row[] = [
  [1, 3, 4, 3, [1, 7, 0, 2, 8, 3, 4, 10, 5, 6, 9, 11]],
  [2, 3, 4, 3, [1, 7, 0, 2, 8, 3, 4, 10, 5, 6, 9, 11]],
  [3, 3, 6, 2, [1, 7, 10, 5, 6, 2, 3, 9, 0, 11, 8, 4]],
];

function fit(row: Row, relaxed: boolean, seed: number): number[] {
  const [perCore, cells, cores, threads] = row;
  return new CpuPool(threads, cores, shuffled(ALL, seed), host(cells, perCore, THREADS), relaxed).fitCores();
}

describe('CpuPool.fitCores (KubeVirt vcpu_test.go generated cases)', () => {
  for (const relaxed of [true, false]) {
    for (const row of BOTH) {
      const [perCore, cells, cores, threads, want] = row;
      it(`${relaxed ? 'relaxed' : 'strict'}: ${cores} cores × ${threads} on ${perCore}-thread host cores in ${cells} cell(s)`, () => {
        expect(fit(row, relaxed, cores * 31 + cells)).toEqual(want ?? THREADS);
      });
    }
  }
  for (const row of RELAXED_ONLY) {
    const [perCore, cells, cores, threads, want] = row;
    it(`relaxed crosses cells: ${cores} cores × ${threads} on ${perCore}-thread host cores in ${cells} cells`, () => {
      expect(fit(row, true, 7)).toEqual(want);
    });
    it(`strict refuses to cross cells: ${cores} cores × ${threads} on ${perCore}-thread host cores in ${cells} cells`, () => {
      expect(() => fit(row, false, 7)).toThrow(/without a guest core crossing host NUMA cells/);
    });
  }
});

describe('CpuPool.fitCores (KubeVirt vcpu_test.go explicit cases)', () => {
  const pairs = [1, 7, 0, 6, 2, 8, 3, 9, 4, 10, 5, 11];
  it('follows the host order, not the CPU set order', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const pool = new CpuPool(1, 12, shuffled(ALL, seed), host(1, 2, pairs), true);
      expect(pool.fitCores()).toEqual(pairs);
    }
  });
  it('refuses when the set has fewer CPUs than vCPUs, naming context.cpuSet', () => {
    const pool = new CpuPool(1, 12, shuffled(ALL.slice(0, 11), 3), host(1, 2, pairs), true);
    let err: unknown;
    try {
      pool.fitCores();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CpuPoolError);
    expect((err as CpuPoolError).field).toBe('context.cpuSet');
    expect((err as CpuPoolError).message).toMatch(/1 core\(s\) do not fit/);
  });
  it('strict: 3 cores × 2 threads on two cells of 3 single threads need a core across cells', () => {
    const pool = new CpuPool(2, 3, [0, 1, 2, 6, 7, 8], host(2, 3, [1, 7, 0, 6, 2, 8]), false);
    expect(() => pool.fitCores()).toThrow(/1 core\(s\) do not fit without a guest core crossing/);
  });
  it('relaxed: the same request places the third core across the cells', () => {
    const pool = new CpuPool(2, 3, shuffled(ALL, 5), host(2, 3, [1, 7, 0, 6, 2, 8]), true);
    expect(pool.fitCores()).toEqual([1, 7, 6, 2, 0, 8]);
  });
});

describe('CpuPool.fitThread (KubeVirt vcpu_test.go "should pick individual threads")', () => {
  function drain(perCore: number, set: number[]): number[] {
    const pool = new CpuPool(2, 1, shuffled(set, 9), host(2, perCore, THREADS), true);
    const out: number[] = [];
    for (let t = pool.fitThread(); t !== undefined; t = pool.fitThread()) out.push(t);
    return out;
  }
  it('one thread per host core, no CPU missing: the host order', () => {
    expect(drain(1, ALL)).toEqual(THREADS);
  });
  it('two threads per host core with 1 and 0 missing: split cores first', () => {
    expect(drain(2, ALL.slice(2))).toEqual([7, 6, 2, 8, 3, 9, 4, 10, 5, 11]);
  });
});

describe('CpuPool without a host topology (one cell of lone CPUs)', () => {
  it('gives vCPU i the i-th CPU even for 2 guest threads per core', () => {
    const set = [2, 3, 5, 8];
    const pool = new CpuPool(2, 2, set, [{ cpus: set.map((id) => ({ id, siblings: [] })) }], true);
    expect(pool.fitCores()).toEqual([2, 3, 5, 8]);
    expect(pool.fitThread()).toBeUndefined();
  });
});
