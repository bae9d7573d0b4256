// <cputune> for dedicated CPU placement: vCPUs, the supplemental IOThread pool, the emulator thread
// and the other IOThreads pinned onto the exclusive CPUs the launcher found in its cgroup
// (context.cpuSet). The vCPUs are fitted onto the host topology by the CPU pool (cpu-pool.ts): the
// host NUMA cells and thread siblings of context.hostNumaNodes when the launcher sent them (strict for NUMA passthrough,
// relaxed otherwise); without them every CPU of the set counts as a core of its own in one cell, so
// vCPU i takes the i-th lowest CPU. What the vCPUs leave serves the IOThread pool and the emulator.
import type { Resolved } from '../context/resolve.js';
import type { CpuTune } from '../domain/types.js';
import { ConversionError } from '../errors.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import type { Configurator } from './configurator.js';
import { CpuPool, CpuPoolError, type PoolCell } from './cpu-pool.js';

/** KubeVirt's alpha annotation: give the emulator a second CPU when the pinned count is even. */
export const EVEN_PARITY_ANNOTATION = 'alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity';

/** Hands out the CPUs the vCPUs left, for helpers that need one each. */
class SpareCpus {
  constructor(private readonly pool: CpuPool) {}
  take(what: string, set: readonly number[]): number {
    const cpu = this.pool.fitThread();
    if (cpu === undefined) {
      throw new ConversionError('context.cpuSet', set, `no CPU of the set is left for ${what}`);
    }
    return cpu;
  }
}

/** The host cells the pool fits into: the launcher's NUMA nodes, or one cell of lone cores. */
function hostCells(ctx: Resolved, sorted: readonly number[]): PoolCell[] {
  const nodes = ctx.raw.hostNumaNodes ?? [];
  if (nodes.length === 0) return [{ cpus: sorted.map((id) => ({ id, siblings: [] })) }];
  return nodes.map((n) => {
    const siblings = new Map(n.cpuSiblings.map((c) => [c.cpu, c.siblings]));
    return { cpus: n.cpus.map((id) => ({ id, siblings: siblings.get(id) ?? [] })) };
  });
}

function fitVcpus(vmi: VirtualMachineInstance, ctx: Resolved, sorted: readonly number[]): CpuPool {
  const { threads } = ctx.topology;
  const strict = vmi.spec.domain.cpu?.numa?.guestMappingPassthrough !== undefined;
  // With vCPU hot-plug only the enabled sockets are pinned (ctx.vcpus counts those).
  const guestCores = Math.ceil(ctx.vcpus / threads);
  return new CpuPool(threads, guestCores, sorted, hostCells(ctx, sorted), !strict);
}

/** Shared/auto IOThreads over the vCPUs' CPUs, in the context's order (KubeVirt's balancing). */
function sharedIoThreadPins(tune: CpuTune, threads: number, vcpus: number, set: readonly number[]): void {
  if (threads >= vcpus) {
    for (let t = 1; t <= threads; t++) tune.iothreadpins.push({ iothread: t, cpuset: String(set[t % vcpus]) });
    return;
  }
  // Balanced slices: 3 threads on 8 CPUs pin to 0-2, 3-5 and 6-7.
  const larger = vcpus % threads;
  let start = 0;
  for (let t = 1; t <= threads; t++) {
    const size = Math.floor(vcpus / threads) + (t <= larger ? 1 : 0);
    tune.iothreadpins.push({ iothread: t, cpuset: set.slice(start, start + size).join(',') });
    start += size;
  }
}

function pin(vmi: VirtualMachineInstance, ctx: Resolved, iothreads: number): CpuTune {
  const set = ctx.raw.cpuSet;
  const cpu = vmi.spec.domain.cpu!;
  if (set.length === 0) {
    throw new ConversionError(
      'context.cpuSet',
      set,
      'dedicatedCpuPlacement needs the exclusive CPUs of the pod (context.cpuSet is empty)',
    );
  }
  const sorted = [...new Set(set)].sort((a, b) => a - b);
  const vcpus = ctx.vcpus;
  if (sorted.length < vcpus) {
    throw new ConversionError(
      'context.cpuSet',
      set,
      `${vcpus} vCPUs need ${vcpus} exclusive CPUs, the set has ${sorted.length}`,
    );
  }
  const tune: CpuTune = { vcpupins: [], iothreadpins: [] };
  const pool = fitVcpus(vmi, ctx, sorted);
  let placed: number[];
  try {
    placed = pool.fitCores();
  } catch (err) {
    if (!(err instanceof CpuPoolError)) throw err;
    // As in KubeVirt, CPUs of the set in no host cell stay out of the pool; when that is why it falls
    // short, name such a CPU rather than the whole set.
    const known = new Set((ctx.raw.hostNumaNodes ?? []).flatMap((n) => n.cpus));
    const stray = known.size > 0 ? sorted.find((c) => !known.has(c)) : undefined;
    if (stray !== undefined) {
      throw new ConversionError(
        'context.hostNumaNodes',
        String(stray),
        `CPU ${stray} of the set is in no host NUMA node; ${err.message}`,
      );
    }
    throw new ConversionError(err.field, set, err.message);
    throw err;
  }
  placed.forEach((cpu, i) => tune.vcpupins.push({ vcpu: i, cpuset: String(cpu) }));
  const spare = new SpareCpus(pool);
  const poolThreads = ctx.ioThreads.supplementalPool ? ctx.ioThreads.total : 0;
  // The pool's CPUs come before the emulator's: they change the pinned count the parity rule sees.
  for (let t = 1; t <= poolThreads; t++) {
    tune.iothreadpins.push({ iothread: t, cpuset: String(spare.take(`supplemental IOThread ${t}`, set)) });
  }
  if (cpu.isolateEmulatorThread) {
    const emulator = [spare.take('the emulator thread', set)];
    const even = (vcpus + poolThreads) % 2 === 0;
    if (vmi.metadata.annotations?.[EVEN_PARITY_ANNOTATION] !== undefined && even) {
      emulator.push(spare.take('the emulator thread’s second CPU', set));
    }
    tune.emulatorpin = emulator.join(',');
  }
  if (iothreads > 0 && poolThreads === 0) {
    // With an isolated emulator thread the one IOThread shares its CPU.
    if (tune.emulatorpin !== undefined) tune.iothreadpins.push({ iothread: 1, cpuset: tune.emulatorpin });
    else sharedIoThreadPins(tune, iothreads, vcpus, set);
  }
  return tune;
}

export const cpuPinning: Configurator = {
  name: 'cpu-pinning',
  configure(vmi, domain, ctx) {
    if (!vmi.spec.domain.cpu?.dedicatedCpuPlacement) return;
    domain.cputune = pin(vmi, ctx, domain.iothreads ?? 0);
  },
};
