// Human-readable views of the launcher's JSON answers (api.Domain, stats.DomainStats: Go field names).
import { deviceRows } from './render-devices.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (v === undefined || v === null || v === '' ? '-' : String(v));

function table(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

/** The guest agent's channel state, and what it reported into the Status (OS, interfaces, freeze state). */
function guestAgentRows(devices: Json, status: Json): Array<[string, string]> {
  const channels = Array.isArray(devices.Channels) ? (devices.Channels as Json[]) : [];
  const agent = channels.find((c) => isObject(c.Target) && c.Target.Name === 'org.qemu.guest_agent.0');
  const rows: Array<[string, string]> = [];
  if (agent) rows.push(['guest agent', str(isObject(agent.Target) ? agent.Target.State : undefined)]);
  const os = isObject(status.OSInfo) ? status.OSInfo : undefined;
  if (os && (os.PrettyName || os.Name)) rows.push(['guest os', str(os.PrettyName || os.Name)]);
  const ifaces = Array.isArray(status.Interfaces) ? (status.Interfaces as Json[]) : [];
  for (const i of ifaces) {
    const ips = Array.isArray(i.IPs) ? (i.IPs as unknown[]).join(', ') : str(i.Ip);
    rows.push([`guest ${str(i.InterfaceName)}`, `${ips} (${str(i.Mac)})`]);
  }
  if (isObject(status.FSFreezeStatus) && status.FSFreezeStatus.Status) {
    rows.push(['fs freeze', str(status.FSFreezeStatus.Status)]);
  }
  return rows;
}

export function describeDomain(domain: Json): string {
  const meta = isObject(domain.ObjectMeta) ? domain.ObjectMeta : isObject(domain.metadata) ? domain.metadata : {};
  const spec = isObject(domain.Spec) ? domain.Spec : {};
  const status = isObject(domain.Status) ? domain.Status : {};
  const devices = isObject(spec.Devices) ? spec.Devices : {};
  const count = (key: string) => (Array.isArray(devices[key]) ? (devices[key] as unknown[]).length : 0);
  const memory = isObject(spec.Memory) ? `${str(spec.Memory.Value)} ${str(spec.Memory.Unit)}` : '-';
  const rows: Array<[string, string]> = [
    ['domain', str(spec.Name)],
    ['vmi', `${str(meta.namespace)}/${str(meta.name)}`],
    ['uid', str(meta.uid)],
    ['state', `${str(status.Status)} (${str(status.Reason)})`],
    ['uuid', str(spec.UUID)],
    ['memory', memory],
    ['disks', String(count('Disks'))],
    ['interfaces', String(count('Interfaces'))],
  ];
  rows.push(...deviceRows(devices));
  if (meta.deletionTimestamp) rows.push(['deleted at', str(meta.deletionTimestamp)]);
  rows.push(...guestAgentRows(devices, status));
  return table(rows);
}

/**
 * stats.DomainStats pairs every metric X with a flag XSet; only the set ones carry information. Nested
 * objects (Cpu, Memory) and lists (Vcpu, Net, Block) are flattened to dotted keys.
 */
export function flattenStats(value: unknown, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) {
    value.forEach((item, i) => flattenStats(item, `${prefix}[${i}]`, out));
  } else if (isObject(value)) {
    for (const [key, v] of Object.entries(value)) {
      if (key.endsWith('Set')) continue;
      if (value[`${key}Set`] === false) continue;
      flattenStats(v, prefix ? `${prefix}.${key}` : key, out);
    }
  } else if (value !== null && value !== undefined && value !== '') {
    out.push([prefix, String(value)]);
  }
  return out;
}

export function describeStats(stats: unknown): string {
  const rows = flattenStats(stats);
  return rows.length ? table(rows) : '(no statistics)';
}
