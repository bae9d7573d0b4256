// What the guest agent last reported, in KubeVirt's api shapes (Go field names: they go into the domain JSON).
// A change of OS info, interfaces or freeze status is what makes KubeVirt send a MODIFIED domain event; the
// other facts (users, filesystems, hostname, timezone, agent version) are only read by the RPCs.
import { isDeepStrictEqual } from 'node:util';

import type { GuestOSInfoOverlay, InterfaceStatusOverlay } from '../domain/domain-status-overlay.js';

export interface AgentFilesystem {
  Name: string;
  Mountpoint: string;
  Type: string;
  UsedBytes: number;
  TotalBytes: number;
  Disk: Array<{ Serial?: string; BusType: string }>;
}

export interface AgentUser {
  Name: string;
  Domain?: string;
  /** Seconds since the epoch (KubeVirt converts libvirt's milliseconds). */
  LoginTime: number;
}

export interface AgentVersionInfo {
  Version: string;
  SupportedCommands: Array<{ name: string; enabled?: boolean }>;
}

export interface AgentFacts {
  osInfo?: GuestOSInfoOverlay;
  interfaces?: InterfaceStatusOverlay[];
  fsFreezeStatus?: string;
  hostname?: string;
  timezone?: { Zone: string; Offset: number };
  users?: AgentUser[];
  filesystems?: AgentFilesystem[];
  agent?: AgentVersionInfo;
}

/** The facts that reach the domain JSON: a change in one of them is announced. */
const ANNOUNCED: ReadonlySet<keyof AgentFacts> = new Set(['osInfo', 'interfaces', 'fsFreezeStatus']);

export class AgentStore {
  private facts: AgentFacts = {};
  private readonly listeners: Array<() => void> = [];

  /** Called after a change of OS info, interfaces or freeze status. */
  onAnnouncedChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  store<K extends keyof AgentFacts>(key: K, value: AgentFacts[K]): void {
    const before = this.facts[key];
    this.facts[key] = value;
    if (ANNOUNCED.has(key) && (before === undefined || !isDeepStrictEqual(before, value))) {
      this.listeners.forEach((l) => l());
    }
  }

  get(): Readonly<AgentFacts> {
    return this.facts;
  }

  /** Forgets everything (the domain is gone): the RPCs answer their empty results again. */
  clear(): void {
    this.facts = {};
  }
}
