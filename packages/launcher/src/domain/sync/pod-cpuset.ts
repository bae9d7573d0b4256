// The pod's CPU set, which dedicated CPU placement pins vCPUs to. The CPU manager gives a pod with
// dedicatedCpuPlacement exclusive CPUs by narrowing its cgroup's cpuset; the launcher reads that cpuset from its
// own cgroup (the pod's, seen through the cgroup namespace), as KubeVirt's launcher does before it converts.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { VmiView } from '../../vmi.js';

/** No node has more CPUs than this; a longer list is refused before it is built (a range like `0-4000000000`). */
export const MAX_POD_CPUS = 50_000;

/** The cpuset could not be read or is not a CPU list; `path` is the file it came from (or the text's source). */
export class PodCpuSetError extends Error {
  constructor(
    readonly path: string,
    readonly value: string,
    reason: string,
  ) {
    super(`pod cpuset ${path}: ${JSON.stringify(value)} ${reason}`);
    this.name = 'PodCpuSetError';
  }
}

/**
 * A Linux CPU list (`0-3,8,10-11`, see cpuset(7)) as sorted, distinct CPU numbers. Empty text, a bad item or a
 * reversed range is refused: an empty list would leave nothing to pin to, and a malformed one means the file is
 * not what we think it is.
 */
export function parseCpuList(text: string, source = 'cpuset'): number[] {
  const line = text.trim();
  const refuse = (reason: string): never => {
    throw new PodCpuSetError(source, line, reason);
  };
  if (line === '') refuse('is empty');
  const cpus = new Set<number>();
  for (const item of line.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (!m) refuse(`is not a CPU list (item ${JSON.stringify(item)})`);
    const first = Number(m![1]);
    const last = m![2] === undefined ? first : Number(m![2]);
    if (last < first) refuse(`has a reversed range ${item}`);
    if (last - first + 1 + cpus.size > MAX_POD_CPUS) refuse(`lists more than ${MAX_POD_CPUS} CPUs`);
    for (let cpu = first; cpu <= last; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/**
 * The file that holds the pod's effective cpuset: cgroup v2 (unified, `cgroup.controllers` at the root) exposes
 * `cpuset.cpus.effective`; v1 has its cpuset controller mounted at `cpuset/` with `cpuset.cpus`.
 */
export async function podCpuSetPath(cgroupRoot = '/sys/fs/cgroup'): Promise<string> {
  const unified = await stat(join(cgroupRoot, 'cgroup.controllers')).then(
    () => true,
    () => false,
  );
  return unified ? join(cgroupRoot, 'cpuset.cpus.effective') : join(cgroupRoot, 'cpuset', 'cpuset.cpus');
}

/** Reads and parses the pod's cpuset; a missing or unreadable file is a PodCpuSetError naming the path. */
export async function readPodCpuSet(cgroupRoot = '/sys/fs/cgroup'): Promise<number[]> {
  const path = await podCpuSetPath(cgroupRoot);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new PodCpuSetError(path, '', `cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  // The kernel writes one line; only that line is the list.
  return parseCpuList(text.split('\n')[0] ?? '', path);
}

/** Whether the VMI asks for dedicated CPUs (spec.domain.cpu.dedicatedCpuPlacement), read from the request. */
export function wantsDedicatedCpus(vmi: Pick<VmiView, 'raw'>): boolean {
  try {
    const doc = JSON.parse(vmi.raw.toString('utf8')) as {
      spec?: { domain?: { cpu?: { dedicatedCpuPlacement?: unknown } } };
    };
    return doc.spec?.domain?.cpu?.dedicatedCpuPlacement === true;
  } catch {
    // The request was parsed already to make the view; unparsable here means there is nothing to pin.
    return false;
  }
}
