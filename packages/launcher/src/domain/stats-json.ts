// libvirt bulk stats (typed parameters such as `cpu.time`, `vcpu.0.time`, `net.1.rx.bytes`) -> KubeVirt's
// stats.DomainStats JSON: Go field names, every metric with its companion `<X>Set` flag (docs/cmd-contract.md#payloads).

type Params = Record<string, number | string | boolean>;
type Json = Record<string, unknown>;

/** [Go field, libvirt key] pairs; absent keys give `<Field>Set: false` and the zero value. */
function group(params: Params, prefix: string, fields: Array<[string, string]>, zero: unknown = 0): Json {
  const out: Json = {};
  for (const [field, key] of fields) {
    const value = params[`${prefix}${key}`];
    out[`${field}Set`] = value !== undefined;
    out[field] = value ?? zero;
  }
  return out;
}

const cpu: Array<[string, string]> = [
  ['Time', 'time'],
  ['User', 'user'],
  ['System', 'system'],
];
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
  ['Total', 'maximum'],
];
const vcpu: Array<[string, string]> = [
  ['State', 'state'],
  ['Time', 'time'],
  ['Wait', 'wait'],
  ['Delay', 'delay'],
];
const net: Array<[string, string]> = [
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
  ['BackingIndex', 'backingIndex'],
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

function list(params: Params, kind: string, fields: Array<[string, string]>, extra: (p: string) => Json): Json[] {
  const count = Number(params[`${kind}.count`] ?? params[`${kind}.maximum`] ?? 0);
  const out: Json[] = [];
  for (let i = 0; i < count; i++) out.push({ ...extra(`${kind}.${i}.`), ...group(params, `${kind}.${i}.`, fields) });
  return out;
}

/** `aliases` maps a device name (tap or disk target) to its KubeVirt alias, as KubeVirt's alias map does. */
export function domainStatsJson(
  record: { name: string; uuid: string; stats: Params },
  aliases: Record<string, string> = {},
): Json {
  const p = record.stats;
  const named = (prefix: string): Json => {
    const name = p[`${prefix}name`];
    return { NameSet: name !== undefined, Name: name ?? '', Alias: aliases[String(name)] ?? '' };
  };
  return {
    Name: record.name,
    UUID: record.uuid,
    Cpu: group(p, 'cpu.', cpu),
    Memory: group(p, 'balloon.', memory),
    MigrateDomainJobInfo: null,
    Vcpu: list(p, 'vcpu', vcpu, () => ({})),
    Net: list(p, 'net', net, (prefix) => ({
      ...named(prefix),
      AliasSet: aliases[String(p[`${prefix}name`])] !== undefined,
    })),
    Block: list(p, 'block', block, (prefix) => ({
      ...named(prefix),
      PathSet: p[`${prefix}path`] !== undefined,
      Path: p[`${prefix}path`] ?? '',
    })),
    CPUMapSet: false,
    CPUMap: null,
    DirtyRate: null,
    Load: null,
  };
}
