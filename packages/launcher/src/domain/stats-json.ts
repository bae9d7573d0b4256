// libvirt bulk stats (typed parameters such as `cpu.time`, `vcpu.0.time`, `net.1.rx.bytes`) → KubeVirt's
// stats.DomainStats JSON (docs/domain-json.md). The Go value is built from libvirt's keys as KubeVirt's statsconv
// does, then written by the field table's encoding/json rules, so every key and `<X>Set` flag is KubeVirt's.
import { encodeGoJson } from './go-fields/encode-json.js';

export type Params = Record<string, number | string | boolean | bigint>;
type Value = Record<string, unknown>;

/** [Go field, libvirt key] pairs; a present key gives `<Field>Set: true` and its value. */
function group(params: Params, prefix: string, fields: Array<[string, string]>): Value {
  const out: Value = {};
  for (const [field, key] of fields) {
    const value = params[`${prefix}${key}`];
    if (value === undefined) continue;
    out[`${field}Set`] = true;
    out[field] = typeof value === 'bigint' ? Number(value) : value;
  }
  return out;
}

const cpu: Array<[string, string]> = [
  ['Time', 'time'],
  ['User', 'user'],
  ['System', 'system'],
];
// The balloon group carries the same numbers as virDomainMemoryStats (which KubeVirt reads): `current` is the
// ACTUAL_BALLOON stat, and KubeVirt takes Total from balloon.current as well.
const memory: Array<[string, string]> = [
  ['Unused', 'unused'],
  ['Cached', 'disk_caches'],
  ['Available', 'available'],
  ['ActualBalloon', 'current'],
  ['RSS', 'rss'],
  ['SwapIn', 'swap_in'],
  ['SwapOut', 'swap_out'],
  ['MajorFault', 'major_fault'],
  ['MinorFault', 'minor_fault'],
  ['Usable', 'usable'],
  ['Total', 'current'],
];
const vcpu: Array<[string, string]> = [
  ['State', 'state'],
  ['Time', 'time'],
  ['Wait', 'wait'],
  ['Delay', 'delay'],
];
const net: Array<[string, string]> = [
  ['Name', 'name'],
  ['RxBytes', 'rx.bytes'],
  ['RxPkts', 'rx.pkts'],
  ['RxErrs', 'rx.errs'],
  ['RxDrop', 'rx.drop'],
  ['TxBytes', 'tx.bytes'],
  ['TxPkts', 'tx.pkts'],
  ['TxErrs', 'tx.errs'],
  ['TxDrop', 'tx.drop'],
];
const block: Array<[string, string]> = [
  ['Name', 'name'],
  ['BackingIndex', 'backingIndex'],
  ['Path', 'path'],
  ['RdReqs', 'rd.reqs'],
  ['RdBytes', 'rd.bytes'],
  ['RdTimes', 'rd.times'],
  ['WrReqs', 'wr.reqs'],
  ['WrBytes', 'wr.bytes'],
  ['WrTimes', 'wr.times'],
  ['FlReqs', 'fl.reqs'],
  ['FlTimes', 'fl.times'],
  ['Errors', 'errors'],
  ['Allocation', 'allocation'],
  ['Capacity', 'capacity'],
  ['Physical', 'physical'],
];
const dirtyRate: Array<[string, string]> = [
  ['CalcStatus', 'calc_status'],
  ['CalcStartTime', 'calc_start_time'],
  ['CalcPeriod', 'calc_period'],
  ['MegabytesPerSecond', 'megabytes_per_second'],
];

/** `<kind>.N.*` for N below `<kind>.count` (vCPUs: `vcpu.maximum`, as libvirt numbers them). */
function list(params: Params, kind: string, countKey: string, fields: Array<[string, string]>): Value[] {
  const count = Number(params[`${kind}.${countKey}`] ?? 0);
  return Array.from({ length: count }, (_, i) => group(params, `${kind}.${i}.`, fields));
}

/** libvirt's job statistics (virDomainGetJobStats) as KubeVirt's DomainJobInfo. */
export function migrateJobInfo(stats: Params): Value {
  const n = (k: string): number | undefined => (stats[k] === undefined ? undefined : Number(stats[k]));
  const out = group(stats, '', [
    ['DataTotal', 'data_total'],
    ['DataProcessed', 'data_processed'],
    ['MemoryBps', 'memory_bps'],
    ['DataRemaining', 'data_remaining'],
  ]);
  const rate = n('memory_dirty_rate');
  const page = n('memory_page_size');
  // KubeVirt reports bytes: pages per second times the page size, set only when both are known.
  if (rate !== undefined && page !== undefined)
    Object.assign(out, { MemDirtyRateSet: true, MemDirtyRate: rate * page });
  return out;
}

export interface StatsRecord {
  name: string;
  uuid: string;
  stats: Params;
}

export interface DomainStatsExtras {
  /** Device name (tap, disk target) → KubeVirt's alias (the VMI's interface/disk name), as KubeVirt's alias map. */
  aliases?: Record<string, string>;
  /** vCPU → host CPU affinity (virDomainGetVcpuPinInfo's answer); CPUMapSet is true when given. */
  cpuMap?: boolean[][];
  /** The running job's statistics, for MigrateDomainJobInfo; null when no job runs. */
  jobStats?: Params;
  /** The guest agent's load averages (stats.DomainStatsLoad, Go field names) when it reports them. */
  load?: Value;
}

/** stats.DomainStats as a Go value. */
export function domainStatsValue(record: StatsRecord, input: DomainStatsExtras = {}): Value {
  const p = record.stats;
  const aliases = input.aliases ?? {};
  const nets = list(p, 'net', 'count', net).map((n) => {
    const alias = typeof n.Name === 'string' ? aliases[n.Name] : undefined;
    return alias === undefined ? n : { ...n, AliasSet: true, Alias: alias };
  });
  const blocks = list(p, 'block', 'count', block).map((b) => {
    const alias = typeof b.Name === 'string' ? aliases[b.Name] : undefined;
    return alias === undefined ? b : { ...b, Alias: alias }; // DomainStatsBlock has no AliasSet
  });
  return {
    Name: record.name,
    UUID: record.uuid,
    Cpu: group(p, 'cpu.', cpu),
    Memory: group(p, 'balloon.', memory),
    MigrateDomainJobInfo: input.jobStats ? migrateJobInfo(input.jobStats) : undefined,
    Vcpu: list(p, 'vcpu', 'maximum', vcpu),
    Net: nets,
    Block: blocks,
    CPUMapSet: input.cpuMap !== undefined,
    CPUMap: input.cpuMap,
    DirtyRate: group(p, 'dirtyrate.', dirtyRate),
    Load: input.load,
  };
}

export function domainStatsJson(record: StatsRecord, extras: DomainStatsExtras = {}): Value {
  return encodeGoJson('DomainStats', domainStatsValue(record, extras), 'stats') as Value;
}
