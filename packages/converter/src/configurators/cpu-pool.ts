// Fitting a requested guest topology (sockets × cores × threads) onto the exclusive host CPUs, as
// KubeVirt's CPU pool does: the host CPUs are grouped into cores (thread siblings) and cores into NUMA
// cells; each guest core takes `threads` host threads of one host core if it can, then threads left
// over from split host cores of one cell, and only a relaxed pool lets a guest core span cells.
// A guest NUMA passthrough VMI gets the strict pool (its guest cells mirror host cells, so a core
// that spans two of them would be wrong); every other dedicated-CPU VMI gets the relaxed one.

/** One host CPU as the pool sees it: its id and its thread siblings (itself included; empty = none known). */
export interface PoolCpu {
  id: number;
  siblings: number[];
}

/** One host NUMA cell: its CPUs in the host's order. */
export interface PoolCell {
  cpus: PoolCpu[];
}

/** The pool could not place what was asked; `field` and `value` name the request that failed. */
export class CpuPoolError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    reason: string,
  ) {
    super(reason);
    this.name = 'CpuPoolError';
  }
}

class Cell {
  /** Host cores that still hold at least one whole guest core (`threads` threads). */
  full: number[][] = [];
  /** Loose threads: remainders of split host cores and host cores too small for a guest core. */
  loose: number[] = [];
  constructor(private readonly threads: number) {}

  /** A whole guest core from one host core, or nothing. */
  takeWhole(): number[] | undefined {
    const core = this.full[0];
    if (core === undefined) return undefined;
    this.consume(this.threads);
    return core.slice(0, this.threads);
  }

  /** A whole guest core from the loose threads of this cell, or nothing. */
  takeLoose(): number[] | undefined {
    if (this.loose.length < this.threads) return undefined;
    return this.loose.splice(0, this.threads);
  }

  /** Up to `count` loose threads (for cores that may cross cells). */
  takeLooseUpTo(count: number): number[] {
    return this.loose.splice(0, Math.min(count, this.loose.length));
  }

  /** One thread for a helper (emulator, IOThread): loose threads first so whole cores stay whole. */
  takeOne(): number | undefined {
    if (this.loose.length > 0) return this.loose.shift();
    if (this.full[0] === undefined) return undefined;
    const cpu = this.full[0][0];
    this.consume(1);
    return cpu;
  }

  /** Removes `n` threads from the first whole host core; what stays too small becomes loose. */
  private consume(n: number): void {
    const rest = this.full[0]!.slice(n);
    if (rest.length >= this.threads) this.full[0] = rest;
    else {
      this.full.shift();
      this.loose.push(...rest);
    }
  }

  get empty(): boolean {
    return this.full.length === 0 && this.loose.length === 0;
  }
}

/** Groups the CPU set into host cores per cell; CPUs outside the set are left out of their core. */
function coresPerCell(cpuSet: readonly number[], cells: readonly PoolCell[]): number[][][] {
  const inSet = new Set(cpuSet);
  const seen = new Set<number>();
  return cells.map((cell) => {
    const cores: number[][] = [];
    for (const cpu of cell.cpus) {
      if (seen.has(cpu.id)) continue;
      const members = cpu.siblings.length > 0 ? cpu.siblings : [cpu.id];
      for (const m of members) seen.add(m);
      cores.push(members.filter((m) => inSet.has(m)));
    }
    return cores;
  });
}

export class CpuPool {
  private readonly cells: Cell[];
  private readonly available: number;

  constructor(
    private readonly threads: number,
    private readonly cores: number,
    cpuSet: readonly number[],
    cells: readonly PoolCell[],
    private readonly allowCellCrossing: boolean,
  ) {
    this.available = cpuSet.length;
    this.cells = coresPerCell(cpuSet, cells).map((hostCores) => {
      const cell = new Cell(threads);
      for (const core of hostCores) {
        if (core.length >= threads) cell.full.push(core);
        else cell.loose.push(...core);
      }
      return cell;
    });
  }

  /** The host thread of every vCPU, vCPU 0 first. */
  fitCores(): number[] {
    const picked: number[] = [];
    let left = this.cores;
    for (const take of [(c: Cell) => c.takeWhole(), (c: Cell) => c.takeLoose()]) {
      for (const cell of this.cells) {
        while (left > 0) {
          const chunk = take(cell);
          if (chunk === undefined) break;
          picked.push(...chunk);
          left--;
        }
      }
      if (left === 0) return picked;
    }
    if (this.allowCellCrossing) {
      let threadsLeft = left * this.threads;
      for (const cell of this.cells) {
        if (threadsLeft === 0) break;
        const chunk = cell.takeLooseUpTo(threadsLeft);
        picked.push(...chunk);
        threadsLeft -= chunk.length;
      }
      if (threadsLeft === 0) return picked;
      left = Math.ceil(threadsLeft / this.threads);
    }
    if (this.allowCellCrossing || this.available < this.cores * this.threads) {
      throw new CpuPoolError('context.cpuSet', this.available, `not enough exclusive CPUs: ${left} core(s) do not fit`);
    }
    throw new CpuPoolError(
      'context.hostNumaNodes',
      this.cells.length,
      `${left} core(s) do not fit without a guest core crossing host NUMA cells`,
    );
  }

  /** One more host thread (emulator thread, supplemental IOThread), or undefined when none is left. */
  fitThread(): number | undefined {
    for (const cell of this.cells) {
      if (!cell.empty) return cell.takeOne();
    }
    return undefined;
  }
}
