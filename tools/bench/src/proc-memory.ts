// Memory facts of one process and of the node, read from /proc, for the launcher suite's per-process and
// per-additional-pod rows. Private = pages only this process maps (what killing it gives back); Anonymous = heap,
// stacks and other pages not backed by a file (what a JavaScript engine's heap shows up as).
import { readFile } from 'node:fs/promises';

export interface ProcMemKiB {
  rss: number;
  pss: number;
  /** Private_Clean + Private_Dirty. */
  priv: number;
  anon: number;
}

/** Parses the `Name:  N kB` lines of smaps_rollup (or meminfo) into a lookup. */
export function kibField(text: string, name: string): number {
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

export async function procMemKiB(pid: number): Promise<ProcMemKiB> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  return {
    rss: kibField(rollup, 'Rss'),
    pss: kibField(rollup, 'Pss'),
    priv: kibField(rollup, 'Private_Clean') + kibField(rollup, 'Private_Dirty'),
    anon: kibField(rollup, 'Anonymous'),
  };
}

/** The median of 5 readings 100 ms apart: other work on the node moves MemAvailable by MiBs from one moment to the next. */
export async function memAvailableKiB(): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    samples.push(kibField(await readFile('/proc/meminfo', 'utf8'), 'MemAvailable'));
  }
  return samples.sort((a, b) => a - b)[2] as number;
}

/**
 * KubeVirt v1.9's per-pod memory overhead constants (the `ps` RSS it budgets per process in GetMemoryOverhead of its
 * KVM hypervisor backend), in MiB. Their sum is what every VM pod requests beyond the guest for these processes.
 */
export const KUBEVIRT_OVERHEAD_MIB = { monitor: 25, launcher: 100, virtlogd: 25, virtqemud: 40 } as const;
export const KUBEVIRT_OVERHEAD_TOTAL_MIB = Object.values(KUBEVIRT_OVERHEAD_MIB).reduce((a, b) => a + b, 0);

export const mib = (kib: number): string => (kib / 1024).toFixed(1);

/** One line per process: `who rss/pss/private/anon`. */
export function describeProcesses(rows: { who: string; mem: ProcMemKiB }[]): string {
  return rows
    .map(({ who, mem }) => `${who} ${mib(mem.rss)}/${mib(mem.pss)}/${mib(mem.priv)}/${mib(mem.anon)}`)
    .join(', ');
}

export function sumMem(rows: { mem: ProcMemKiB }[]): ProcMemKiB {
  const total: ProcMemKiB = { rss: 0, pss: 0, priv: 0, anon: 0 };
  for (const { mem } of rows) {
    total.rss += mem.rss;
    total.pss += mem.pss;
    total.priv += mem.priv;
    total.anon += mem.anon;
  }
  return total;
}
