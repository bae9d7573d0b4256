// The downwardMetrics disk: vhostmd0 in the private downwardapi-disks folder (the file the domain names), made
// before the domain is defined and refreshed every 5 seconds while the launcher runs, as KubeVirt's
// downward-metrics collector does. Filled metrics (all context "host", read from this pod's /proc):
// Time, HostName, NumberOfPhysicalCPUs, TotalCPUTime, FreePhysicalMemory, FreeVirtualMemory,
// MemoryAllocatedToVirtualServers, UsedVirtualMemory, PagedInMemory, PagedOutMemory, VirtualizationVendor,
// VirtProductInfo. The per-VM metrics (vCPU time, memory limits) need domain statistics and are not filled.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { EphemeralDiskFace, Metric } from '../../../adapters/ephemeral-disk.js';
import { log } from '../../../log.js';
import type { SyncEnv } from '../env.js';

export const REFRESH_MS = 5_000;
const USER_HZ = 100;

export function metricsDiskPath(env: SyncEnv): string {
  return join(env.paths.privateDir, 'downwardapi-disks', 'vhostmd0');
}

function kib(fields: Map<string, number>, ...names: string[]): number {
  return names.reduce((sum, name) => sum + (fields.get(name) ?? 0), 0);
}

/** "Key: value kB" lines of /proc/meminfo, or "key value" lines of /proc/vmstat. */
function numbers(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^(\S+?):?\s+(\d+)/.exec(line);
    if (match?.[1] !== undefined) out.set(match[1], Number(match[2]));
  }
  return out;
}

const read = (path: string): Promise<string> => readFile(path, 'utf8').catch(() => '');

export async function hostMetrics(): Promise<Metric[]> {
  const [cpuinfo, stat, meminfo, vmstat] = await Promise.all([
    read('/proc/cpuinfo'),
    read('/proc/stat'),
    read('/proc/meminfo'),
    read('/proc/vmstat'),
  ]);
  const physicalIds = new Set([...cpuinfo.matchAll(/^physical id\s*:\s*(\d+)/gm)].map((m) => m[1]));
  const cpuLine = /^cpu\s+(.*)$/m.exec(stat)?.[1] ?? '';
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is time spent.
  const ticks = cpuLine.split(/\s+/).map(Number);
  const busy = ticks.slice(0, 8).reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + (value || 0)), 0);
  const mem = numbers(meminfo);
  const vm = numbers(vmstat);
  const pageKib = 4;
  const free = kib(mem, 'MemFree');
  const host = (name: string, type: Metric['type'], value: string | number, unit?: string): Metric => ({
    name,
    type,
    context: 'host',
    value: String(value),
    ...(unit ? { unit } : {}),
  });
  return [
    host('Time', 'int64', Math.floor(Date.now() / 1000), 's'),
    host('HostName', 'string', hostname()),
    host('NumberOfPhysicalCPUs', 'int64', Math.max(physicalIds.size, 1)),
    host('TotalCPUTime', 'real64', (busy / USER_HZ).toFixed(2), 's'),
    host('FreePhysicalMemory', 'uint64', free, 'KiB'),
    host('FreeVirtualMemory', 'uint64', free + kib(mem, 'SwapFree'), 'KiB'),
    host(
      'MemoryAllocatedToVirtualServers',
      'uint64',
      kib(mem, 'MemTotal') - kib(mem, 'MemFree', 'Buffers', 'Cached'),
      'KiB',
    ),
    host(
      'UsedVirtualMemory',
      'uint64',
      kib(mem, 'MemTotal', 'SwapTotal') - kib(mem, 'MemFree', 'Cached', 'Buffers', 'SwapCached'),
      'KiB',
    ),
    host('PagedInMemory', 'uint64', kib(vm, 'pswpin') * pageKib, 'KiB'),
    host('PagedOutMemory', 'uint64', kib(vm, 'pswpout') * pageKib, 'KiB'),
    host('VirtualizationVendor', 'string', 'virt-launcher-ts'),
    host('VirtProductInfo', 'string', 'virt-launcher-ts'),
  ];
}

const writers = new Map<string, NodeJS.Timeout>();

/** Creates the disk, writes the metrics once, then keeps them fresh (one writer per disk, never blocking exit). */
export async function prepareMetricsDisk(env: SyncEnv, eph: EphemeralDiskFace): Promise<string> {
  const path = metricsDiskPath(env);
  await eph.createMetricsDisk(path);
  await eph.writeMetrics(path, await hostMetrics());
  if (!writers.has(path)) {
    const timer = setInterval(() => {
      hostMetrics()
        .then((metrics) => eph.writeMetrics(path, metrics))
        .catch((err: unknown) => {
          // The disk went away or became something else: stop (a later define starts a new writer) rather than
          // log the same failure every 5 seconds.
          clearInterval(timer);
          writers.delete(path);
          const reason = err instanceof Error ? err.message : String(err);
          log.warning(`downward metrics writer for ${path} stopped: ${reason}`);
        });
    }, REFRESH_MS);
    timer.unref();
    writers.set(path, timer);
  }
  return path;
}
