// <cputune> for dedicated CPU placement: vCPUs, the supplemental IOThread pool, the emulator thread
// and the other IOThreads pinned onto the exclusive CPUs the launcher found in its cgroup
// (context.cpuSet). The context carries no host topology (siblings, NUMA cells), so every CPU of the set
// counts as a core of its own in one cell: vCPU i takes the i-th lowest CPU, as KubeVirt does on such a
// host, and what is left over serves the IOThread pool and the emulator thread.
import type { Resolved } from '../context/resolve.js';
import type { CpuTune } from '../domain/types.js';
import { ConversionError } from '../errors.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import type { Configurator } from './configurator.js';

/** KubeVirt's alpha annotation: give the emulator a second CPU when the pinned count is even. */
export const EVEN_PARITY_ANNOTATION = 'alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity';

class SpareCpus {
  private next = 0;
  constructor(private readonly cpus: number[]) {}
  take(what: string, set: readonly number[]): number {
    const cpu = this.cpus[this.next++];
    if (cpu === undefined) {
      throw new ConversionError('context.cpuSet', set, `no CPU of the set is left for ${what}`);
    }
    return cpu;
  }
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
  for (let i = 0; i < vcpus; i++) tune.vcpupins.push({ vcpu: i, cpuset: String(sorted[i]) });
  const spare = new SpareCpus(sorted.slice(vcpus));
  const pool = ctx.ioThreads.supplementalPool ? ctx.ioThreads.total : 0;
  // The pool's CPUs come before the emulator's: they change the pinned count the parity rule sees.
  for (let t = 1; t <= pool; t++) {
    tune.iothreadpins.push({ iothread: t, cpuset: String(spare.take(`supplemental IOThread ${t}`, set)) });
  }
  if (cpu.isolateEmulatorThread) {
    const emulator = [spare.take('the emulator thread', set)];
    const even = (vcpus + pool) % 2 === 0;
    if (vmi.metadata.annotations?.[EVEN_PARITY_ANNOTATION] !== undefined && even) {
      emulator.push(spare.take('the emulator thread’s second CPU', set));
    }
    tune.emulatorpin = emulator.join(',');
  }
  if (iothreads > 0 && pool === 0) {
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
