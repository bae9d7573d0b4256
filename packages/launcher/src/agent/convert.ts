// The agent's answers in KubeVirt's api shapes: virDomainGetGuestInfo's (already nested by the binding) and
// the raw JSON of the agent commands KubeVirt still sends itself (guest-info, guest-get-fsinfo,
// guest-fsfreeze-status). Nothing the guest says is trusted: every string and list is bounded (bounds.ts), and
// a raw reply's values must have the JSON types of KubeVirt's structs (agent-poller's Filesystem, FSDisk,
// AgentInfo): an entry that does not fit is dropped, where Go's json.Unmarshal would fail the whole reply.
import type { GuestOSInfoOverlay, InterfaceStatusOverlay } from '../domain/domain-status-overlay.js';
import { AGENT_BOUNDS, boundedList, boundedString, isGoInt, isPlainObject } from './bounds.js';
import type { AgentFilesystem, AgentUser, AgentVersionInfo } from './store.js';
import type { GuestInfo } from './types.js';

/** A reply that is not the JSON the agent command promises. */
export class AgentReplyError extends Error {
  constructor(
    readonly command: string,
    readonly reply: string,
    why = 'unexpected reply',
  ) {
    super(`${why} to ${command}: ${reply.slice(0, 200)}`);
    this.name = 'AgentReplyError';
  }
}

function returned(command: string, reply: string): unknown {
  if (reply.length > AGENT_BOUNDS.replyChars) {
    throw new AgentReplyError(
      command,
      reply,
      `a reply of ${reply.length} characters (over ${AGENT_BOUNDS.replyChars})`,
    );
  }
  try {
    const parsed = JSON.parse(reply) as { return?: unknown };
    if (parsed && typeof parsed === 'object' && 'return' in parsed) return parsed.return;
  } catch {
    // reported below
  }
  throw new AgentReplyError(command, reply);
}

const str = (v: unknown, max?: number): string => boundedString(v, max) ?? '';

/** Interfaces without loopback; the first IPv4 address is the primary one, else the first address. */
export function interfacesFrom(info: GuestInfo): InterfaceStatusOverlay[] | undefined {
  if (!info.interfaces) return undefined;
  const all = info.interfaces
    .filter((i) => i.name !== 'lo')
    .slice(0, AGENT_BOUNDS.interfaces)
    .map((i) => {
      const addrs = i.addrs.slice(0, AGENT_BOUNDS.addressesPerInterface);
      const ips = addrs.map((a) => str(a.addr));
      const ip = str(addrs.find((a) => a.type === 'ipv4')?.addr) || (ips[0] ?? '');
      return { Mac: str(i.hwaddr), Ip: ip, IPs: ips.length > 0 ? ips : undefined, InterfaceName: str(i.name) };
    });
  const out = boundedList(all, AGENT_BOUNDS.interfaces, AGENT_BOUNDS.interfacesBytes);
  return out.length > 0 ? out : undefined;
}

export function osInfoFrom(info: GuestInfo): GuestOSInfoOverlay {
  const os = info.os ?? {};
  return {
    Name: str(os.name),
    KernelRelease: str(os.kernelRelease),
    Version: str(os.version),
    PrettyName: str(os.prettyName),
    VersionId: str(os.versionId),
    KernelVersion: str(os.kernelVersion),
    Machine: str(os.machine),
    Id: str(os.id),
  };
}

export function hostnameFrom(info: GuestInfo): string {
  return str(info.hostname);
}

export function timezoneFrom(info: GuestInfo): { Zone: string; Offset: number } {
  const offset = info.timezone?.offset;
  return { Zone: str(info.timezone?.name), Offset: isGoInt(offset) ? offset : 0 };
}

export function usersFrom(info: GuestInfo): AgentUser[] {
  const users = (info.users ?? []).slice(0, AGENT_BOUNDS.users).map((u) => ({
    Name: str(u.name),
    Domain: boundedString(u.domain),
    LoginTime: Number.isFinite(u.loginTime) ? u.loginTime / 1000 : 0,
  }));
  return boundedList(users, AGENT_BOUNDS.users, AGENT_BOUNDS.usersBytes);
}

export function fsFreezeStatusFrom(reply: string): string {
  const status = returned('guest-fsfreeze-status', reply);
  if (typeof status !== 'string' || status === '' || status.length > AGENT_BOUNDS.shortStringChars) {
    throw new AgentReplyError('guest-fsfreeze-status', reply);
  }
  return status;
}

/** agent-poller's FSDisk: serial (optional) and bus-type strings; undefined when a value does not fit. */
function diskFrom(raw: unknown): AgentFilesystem['Disk'][number] | undefined {
  if (!isPlainObject(raw)) return undefined;
  const serial = raw.serial === undefined ? undefined : boundedString(raw.serial, AGENT_BOUNDS.shortStringChars);
  const busType = raw['bus-type'] === undefined ? '' : boundedString(raw['bus-type'], AGENT_BOUNDS.shortStringChars);
  if ((raw.serial !== undefined && serial === undefined) || busType === undefined) return undefined;
  return { Serial: serial, BusType: busType };
}

/** An optional string field: '' when absent, undefined when present but not a string. */
const optionalString = (v: unknown): string | undefined => (v === undefined ? '' : boundedString(v));
/** An optional Go int field (byte counts are never negative): 0 when absent, undefined when it does not fit. */
const optionalCount = (v: unknown): number | undefined => (v === undefined ? 0 : isGoInt(v, true) ? v : undefined);

/** agent-poller's Filesystem; undefined when any field has a JSON type Go would refuse. */
function filesystemFrom(raw: unknown): AgentFilesystem | undefined {
  if (!isPlainObject(raw)) return undefined;
  const [name, mountpoint, type] = [raw.name, raw.mountpoint, raw.type].map(optionalString);
  const [used, total] = [raw['used-bytes'], raw['total-bytes']].map(optionalCount);
  const rawDisks = raw.disk ?? [];
  if (name === undefined || mountpoint === undefined || type === undefined) return undefined;
  if (used === undefined || total === undefined || !Array.isArray(rawDisks)) return undefined;
  const disks = rawDisks.slice(0, AGENT_BOUNDS.disksPerFilesystem).map(diskFrom);
  if (disks.some((d) => d === undefined)) return undefined;
  return {
    Name: name,
    Mountpoint: mountpoint,
    Type: type,
    UsedBytes: used,
    TotalBytes: total,
    Disk: disks as AgentFilesystem['Disk'],
  };
}

export function filesystemsFrom(reply: string): AgentFilesystem[] {
  const list = returned('guest-get-fsinfo', reply);
  if (!Array.isArray(list)) throw new AgentReplyError('guest-get-fsinfo', reply);
  const kept: AgentFilesystem[] = [];
  // Converted one at a time: a list of 100,000 stops at the bound without building the rest.
  for (const raw of list) {
    if (kept.length >= AGENT_BOUNDS.filesystems) break;
    const fs = filesystemFrom(raw);
    if (fs) kept.push(fs);
  }
  return boundedList(kept, AGENT_BOUNDS.filesystems, AGENT_BOUNDS.filesystemsBytes);
}

export function agentVersionFrom(reply: string): AgentVersionInfo {
  const info = returned('guest-info', reply);
  if (!isPlainObject(info)) throw new AgentReplyError('guest-info', reply);
  const commands = Array.isArray(info.supported_commands) ? info.supported_commands : [];
  const supported = commands.slice(0, AGENT_BOUNDS.supportedCommands).flatMap((c: unknown) => {
    if (!isPlainObject(c)) return [];
    const name = boundedString(c.name ?? '', AGENT_BOUNDS.shortStringChars);
    if (name === undefined || (c.enabled !== undefined && typeof c.enabled !== 'boolean')) return [];
    return [{ name, enabled: c.enabled as boolean | undefined }];
  });
  return {
    Version: str(info.version),
    SupportedCommands: boundedList(supported, AGENT_BOUNDS.supportedCommands, AGENT_BOUNDS.supportedCommandsBytes),
  };
}
