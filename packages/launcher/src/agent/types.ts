// What the guest-agent code needs from the binding: narrow views of @virt-launcher/libvirt's own types (so a
// change there breaks the build here), and the poll intervals of KubeVirt's --qemu-agent-*-interval flags.
import type * as Libvirt from '@virt-launcher/libvirt';

export type AgentDomain = Pick<
  Libvirt.Domain,
  | 'name'
  | 'qemuAgentCommand'
  | 'getGuestInfo'
  | 'fsFreeze'
  | 'fsThaw'
  | 'setTime'
  | 'authorizedSSHKeysSet'
  | 'reboot'
  | 'getState'
  | 'getXMLDesc'
>;

export type AgentLifecycleEvent = Libvirt.AgentLifecycleEvent;
export type DomainLifecycleEvent = Libvirt.DomainLifecycleEvent;
export type GuestInfo = Libvirt.GuestInfo;

/** The connection as the agent code uses it; the binding's Connection is one as it is. */
export interface AgentConnection {
  lookupDomainByName(name: string): Promise<AgentDomain>;
  on(event: 'agentLifecycle', listener: (e: AgentLifecycleEvent) => void): unknown;
  on(event: 'domainEvent', listener: (e: DomainLifecycleEvent) => void): unknown;
  off(event: 'agentLifecycle', listener: (e: AgentLifecycleEvent) => void): unknown;
  off(event: 'domainEvent', listener: (e: DomainLifecycleEvent) => void): unknown;
}

/** KubeVirt's poll periods (virt-launcher flags; defaults 120 s, 300 s, 10 s, 300 s, 5 s). */
export interface AgentIntervals {
  /** --qemu-agent-sys-interval: OS info, hostname, timezone, interfaces. */
  sysMs: number;
  /** --qemu-agent-file-interval: filesystems. */
  fileMs: number;
  /** --qemu-agent-user-interval: logged-in users. */
  userMs: number;
  /** --qemu-agent-version-interval: agent version and supported commands. */
  versionMs: number;
  /** --qemu-fsfreeze-status-interval: freeze state. */
  fsFreezeStatusMs: number;
}

export const DEFAULT_AGENT_INTERVALS: AgentIntervals = {
  sysMs: 120_000,
  fileMs: 300_000,
  userMs: 10_000,
  versionMs: 300_000,
  fsFreezeStatusMs: 5_000,
};

/** A Kubernetes event about the VMI (reason, type, message), sent through the notify socket when available. */
export type K8sEventSink = (event: { type: 'Normal' | 'Warning'; reason: string; message: string }) => Promise<void>;
