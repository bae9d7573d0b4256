// GetDomainStats as KubeVirt's launcher answers it: one bulk-stats call with KubeVirt's groups and flags
// (running or paused domains only, and NOWAIT so a busy monitor never blocks the handler's scrape), the device
// alias map and the vCPU affinity read from the live XML, and the job statistics while a job runs.
import { cpus } from 'node:os';
import { hasLibvirtCode } from '../adapters/libvirt.js';
import type { Connection, Domain } from '../adapters/libvirt.js';
import { parseXml } from '../xml/parse.js';
import { decodeGoXml } from './go-fields/decode-xml.js';
import { domainStatsJson } from './stats-json.js';
import type { Params, StatsRecord } from './stats-json.js';

/** virDomainStatsTypes KubeVirt asks for: BALLOON | CPU_TOTAL | VCPU | INTERFACE | BLOCK | DIRTYRATE. */
export const KUBEVIRT_STATS_TYPES = (1 << 2) | (1 << 1) | (1 << 3) | (1 << 4) | (1 << 5) | (1 << 9);
/** virConnectGetAllDomainStatsFlags: RUNNING | PAUSED | NOWAIT. */
export const KUBEVIRT_STATS_FLAGS = (1 << 4) | (1 << 5) | (1 << 29);

/** virDomainJobType values for a job in progress. */
const JOB_BOUNDED = 1;
const JOB_UNBOUNDED = 2;

export class EmptyDomainStatsError extends Error {
  constructor() {
    super('empty DomainStats'); // KubeVirt's text when libvirt returns no record
    this.name = 'EmptyDomainStatsError';
  }
}

export class CpuSetError extends Error {
  constructor(readonly cpuset: string) {
    super(`cpuset ${JSON.stringify(cpuset)} is not a CPU list`);
    this.name = 'CpuSetError';
  }
}

interface LiveSpec {
  VCPU?: { CPUs?: number };
  CPUTune?: { VCPUPin?: Array<{ VCPU?: number; CPUSet?: string }> };
  Devices?: {
    Interfaces?: Array<{ Target?: { Device?: string }; Alias?: { Name?: string } }>;
    Disks?: Array<{ Target?: { Device?: string }; Alias?: { Name?: string } }>;
  };
}

/** KubeVirt's device alias map: interface target (tap) and disk target (vda) → alias without `ua-`. */
export function deviceAliasMap(spec: LiveSpec): Record<string, string> {
  const map: Record<string, string> = {};
  for (const dev of [...(spec.Devices?.Interfaces ?? []), ...(spec.Devices?.Disks ?? [])]) {
    if (dev.Target?.Device && dev.Alias?.Name !== undefined) map[dev.Target.Device] = dev.Alias.Name;
  }
  return map;
}

/** libvirt's CPU list syntax (`0-3,^2,6`) as a bitmap over `hostCpus` CPUs. */
export function parseCpuSet(cpuset: string, hostCpus: number): boolean[] {
  const bits = new Array<boolean>(hostCpus).fill(false);
  for (const part of cpuset.split(',').map((s) => s.trim())) {
    const m = /^(\^)?(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new CpuSetError(cpuset);
    for (let c = Number(m[2]); c <= Number(m[3] ?? m[2]); c++) if (c < hostCpus) bits[c] = !m[1];
  }
  return bits;
}

/**
 * What virDomainGetVcpuPinInfo answers for a live domain: per vCPU its `<vcpupin>` set, else the `<vcpu cpuset>`,
 * else every host CPU. The rows are the domain's vCPUs; the columns the host's CPUs.
 */
export function vcpuPinMap(
  spec: LiveSpec,
  vcpu: { cpuset?: string; current?: string } | undefined,
  hostCpus: number,
): boolean[][] {
  const pins = new Map((spec.CPUTune?.VCPUPin ?? []).map((p) => [p.VCPU ?? 0, p.CPUSet ?? '']));
  const vcpuCpuset = vcpu?.cpuset;
  // The vCPUs online now (`current`), as virDomainGetInfo's nrVirtCpu counts them.
  const count = vcpu?.current !== undefined ? Number(vcpu.current) : (spec.VCPU?.CPUs ?? 0);
  return Array.from({ length: count }, (_, vcpu) => {
    const set = pins.get(vcpu) ?? vcpuCpuset;
    return set ? parseCpuSet(set, hostCpus) : new Array<boolean>(hostCpus).fill(true);
  });
}

/** The job statistics when the binding offers them (the real one does) and a job is in progress. */
async function runningJob(dom: Domain): Promise<Params | undefined> {
  const withJobs = dom as Domain & { getJobStats?: () => Promise<{ type: number; stats: Params }> };
  if (!withJobs.getJobStats) return undefined;
  // A driver without job statistics (libvirt's test driver) runs no jobs either.
  const job = await withJobs.getJobStats().catch((err: unknown) => {
    if (hasLibvirtCode(err, 'NO_SUPPORT')) return undefined;
    throw err;
  });
  if (!job) return undefined;
  return job.type === JOB_BOUNDED || job.type === JOB_UNBOUNDED ? job.stats : undefined;
}

/** GetDomainStats' JSON for `domainName` (else the first domain libvirt reports). */
export async function domainStatsPayload(conn: Connection, domainName: string): Promise<string> {
  const records = (await conn.getAllDomainStats({
    types: KUBEVIRT_STATS_TYPES,
    flags: KUBEVIRT_STATS_FLAGS,
  })) as StatsRecord[];
  const record = records.find((r) => r.name === domainName) ?? records[0];
  if (!record) throw new EmptyDomainStatsError();
  const dom = await conn.lookupDomainByName(record.name);
  const root = parseXml(await dom.getXMLDesc());
  const spec = decodeGoXml('DomainSpec', root) as LiveSpec;
  // api.VCPU has no cpuset or current field, so those attributes are read from the element itself.
  const vcpu = root.children.find((c) => c.name === 'vcpu')?.attrs;
  const json = domainStatsJson(record, {
    aliases: deviceAliasMap(spec),
    // The host's CPU count, as virNodeGetInfo gives it to virDomainGetVcpuPinInfo's caller.
    cpuMap: vcpuPinMap(spec, vcpu, cpus().length),
    jobStats: await runningJob(dom),
  });
  return JSON.stringify(json);
}
