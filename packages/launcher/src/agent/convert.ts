// The agent's answers in KubeVirt's api shapes: virDomainGetGuestInfo's (already nested by the binding) and
// the raw JSON of the agent commands KubeVirt still sends itself (guest-info, guest-get-fsinfo,
// guest-fsfreeze-status).
import type { GuestOSInfoOverlay, InterfaceStatusOverlay } from '../domain/domain-status-overlay.js';
import type { AgentFilesystem, AgentUser, AgentVersionInfo } from './store.js';
import type { GuestInfo } from './types.js';

/** A reply that is not the JSON the agent command promises. */
export class AgentReplyError extends Error {
  constructor(
    readonly command: string,
    readonly reply: string,
  ) {
    super(`unexpected reply to ${command}: ${reply.slice(0, 200)}`);
    this.name = 'AgentReplyError';
  }
}

function returned(command: string, reply: string): unknown {
  try {
    const parsed = JSON.parse(reply) as { return?: unknown };
    if (parsed && typeof parsed === 'object' && 'return' in parsed) return parsed.return;
  } catch {
    // reported below
  }
  throw new AgentReplyError(command, reply);
}

/** Interfaces without loopback; the first IPv4 address is the primary one, else the first address. */
export function interfacesFrom(info: GuestInfo): InterfaceStatusOverlay[] | undefined {
  if (!info.interfaces) return undefined;
  const out = info.interfaces
    .filter((i) => i.name !== 'lo')
    .map((i) => {
      const ips = i.addrs.map((a) => a.addr);
      const ip = i.addrs.find((a) => a.type === 'ipv4')?.addr ?? ips[0] ?? '';
      return { Mac: i.hwaddr ?? '', Ip: ip, IPs: ips.length > 0 ? ips : undefined, InterfaceName: i.name };
    });
  return out.length > 0 ? out : undefined;
}

export function osInfoFrom(info: GuestInfo): GuestOSInfoOverlay {
  const os = info.os ?? {};
  return {
    Name: os.name ?? '',
    KernelRelease: os.kernelRelease ?? '',
    Version: os.version ?? '',
    PrettyName: os.prettyName ?? '',
    VersionId: os.versionId ?? '',
    KernelVersion: os.kernelVersion ?? '',
    Machine: os.machine ?? '',
    Id: os.id ?? '',
  };
}

export function timezoneFrom(info: GuestInfo): { Zone: string; Offset: number } {
  return { Zone: info.timezone?.name ?? '', Offset: info.timezone?.offset ?? 0 };
}

export function usersFrom(info: GuestInfo): AgentUser[] {
  return (info.users ?? []).map((u) => ({ Name: u.name, Domain: u.domain, LoginTime: u.loginTime / 1000 }));
}

export function fsFreezeStatusFrom(reply: string): string {
  const status = returned('guest-fsfreeze-status', reply);
  if (typeof status !== 'string' || status === '') throw new AgentReplyError('guest-fsfreeze-status', reply);
  return status;
}

interface RawFilesystem {
  name?: string;
  mountpoint?: string;
  type?: string;
  'used-bytes'?: number;
  'total-bytes'?: number;
  disk?: Array<{ serial?: string; 'bus-type'?: string }>;
}

export function filesystemsFrom(reply: string): AgentFilesystem[] {
  const list = returned('guest-get-fsinfo', reply);
  if (!Array.isArray(list)) throw new AgentReplyError('guest-get-fsinfo', reply);
  return (list as RawFilesystem[]).map((fs) => ({
    Name: fs.name ?? '',
    Mountpoint: fs.mountpoint ?? '',
    Type: fs.type ?? '',
    UsedBytes: fs['used-bytes'] ?? 0,
    TotalBytes: fs['total-bytes'] ?? 0,
    Disk: (fs.disk ?? []).map((d) => ({ Serial: d.serial, BusType: d['bus-type'] ?? '' })),
  }));
}

export function agentVersionFrom(reply: string): AgentVersionInfo {
  const info = returned('guest-info', reply) as {
    version?: string;
    supported_commands?: Array<{ name?: string; enabled?: boolean }>;
  };
  if (!info || typeof info !== 'object') throw new AgentReplyError('guest-info', reply);
  return {
    Version: info.version ?? '',
    SupportedCommands: (info.supported_commands ?? []).map((c) => ({ name: c.name ?? '', enabled: c.enabled })),
  };
}
