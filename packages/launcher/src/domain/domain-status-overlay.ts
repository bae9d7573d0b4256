// What the guest agent knows and libvirt's XML does not: the handler reads it from GetDomain's Status
// (interfaces, OS info, freeze state) and from the agent channel's state. The agent module registers one
// provider; domain-json asks it each time a Domain is built (GetDomain and every domain event).

/** api.InterfaceStatus, Go field names. */
export interface InterfaceStatusOverlay {
  Mac?: string;
  Ip?: string;
  IPs?: string[];
  InterfaceName?: string;
}

/** api.GuestOSInfo, Go field names. */
export interface GuestOSInfoOverlay {
  Name?: string;
  KernelRelease?: string;
  Version?: string;
  PrettyName?: string;
  VersionId?: string;
  KernelVersion?: string;
  Machine?: string;
  Id?: string;
}

export interface DomainStatusOverlay {
  Interfaces?: InterfaceStatusOverlay[];
  OSInfo?: GuestOSInfoOverlay;
  FSFreezeStatus?: { Status?: string };
  /**
   * The guest-agent channel's `state` (`connected`/`disconnected`) when the launcher knows better than the
   * live XML (libvirt itself writes it there for a virtio channel); applied to the channel named
   * org.qemu.guest_agent.0.
   */
  agentChannelState?: string;
}

export type DomainStatusOverlayProvider = () => DomainStatusOverlay | undefined;

let provider: DomainStatusOverlayProvider | undefined;

/** Registers the one overlay provider (the guest-agent poller); `undefined` removes it. */
export function setDomainStatusOverlay(next: DomainStatusOverlayProvider | undefined): void {
  provider = next;
}

export function currentDomainStatusOverlay(): DomainStatusOverlay | undefined {
  return provider?.();
}
