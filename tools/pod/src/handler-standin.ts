// The node side of the notify channel: what virt-handler serves for each launcher. It answers the NotifyInfo
// handshake, records every domain event, and decides as virt-handler does (see `HandlerDecisions`): a domain marked
// for graceful shutdown gets ShutdownVirtualMachine (KillVirtualMachine with a grace period of 0), and a domain that
// is off gets a VMI phase (Succeeded or Failed) and DeleteVirtualMachine, after which the launcher exits.
import { serveNotify, type notifyV1 } from '@virt-launcher/launcher';

export interface DomainEventSummary {
  eventType: string;
  status: string;
  reason: string;
  markedForGracefulShutdown: boolean;
  deletion: boolean;
  /** The domain's disks by target (`vda`, `sdb`), as virt-handler reads them off the event's domain spec. */
  disks: string[];
}

interface DomainJson {
  Status?: { Status?: string; Reason?: string };
  Spec?: {
    Metadata?: { KubeVirt?: { GracePeriod?: { MarkedForGracefulShutdown?: boolean } } };
    Devices?: { Disks?: Array<{ Target?: { Device?: string } }> };
  };
  metadata?: { deletionTimestamp?: string };
  ObjectMeta?: { deletionTimestamp?: string };
}

export function summarizeDomainEvent(req: notifyV1.DomainEventRequest): DomainEventSummary {
  const text = Buffer.from(req.domainJSON).toString('utf8');
  const d = (text ? JSON.parse(text) : {}) as DomainJson;
  return {
    eventType: req.eventType,
    status: d.Status?.Status ?? '',
    reason: d.Status?.Reason ?? '',
    markedForGracefulShutdown: d.Spec?.Metadata?.KubeVirt?.GracePeriod?.MarkedForGracefulShutdown === true,
    deletion: Boolean(d.metadata?.deletionTimestamp ?? d.ObjectMeta?.deletionTimestamp),
    disks: (d.Spec?.Devices?.Disks ?? []).map((x) => x.Target?.Device ?? '?'),
  };
}

export interface HandlerStandIn {
  events: DomainEventSummary[];
  close(): Promise<void>;
}

export async function startHandlerStandIn(
  socketPath: string,
  onEvent: (e: DomainEventSummary) => void,
): Promise<HandlerStandIn> {
  const events: DomainEventSummary[] = [];
  // The launcher's notify server: NotifyInfo v1, and an event that cannot be read answers success:false.
  const endpoint = await serveNotify(socketPath, {
    domainEvent: (request) => {
      const e = summarizeDomainEvent(request);
      events.push(e);
      onEvent(e);
    },
  });
  return { events, close: () => endpoint.close() };
}

export type HandlerAction = 'shutdown' | 'kill' | 'delete';
export type VmiPhase = 'Succeeded' | 'Failed';

export interface HandlerDecision {
  /** The cmd RPC to send to the launcher now, if any. */
  action?: HandlerAction;
  /** The VMI's final phase, once the domain is off and its reason says how it ended. */
  phase?: VmiPhase;
}

/** Shut-off reasons that make the phase Succeeded or Failed (virt-handler's table); others leave it unchanged. */
function phaseOf(reason: string, acpi: boolean): VmiPhase | undefined {
  switch (reason) {
    case 'Crashed':
    case 'Panicked':
      return 'Failed';
    // With ACPI a graceful power-off was possible: being destroyed means the grace period ran out.
    case 'Destroyed':
      return acpi ? 'Failed' : 'Succeeded';
    case 'Shutdown':
    case 'Saved':
    case 'FromSnapshot':
      return 'Succeeded';
    default:
      return undefined;
  }
}

/**
 * virt-handler's choices for one VMI, fed one domain event at a time. Each RPC is asked once.
 * - Marked for graceful shutdown while alive: Shutdown when ACPI can be used (grace period > 0 and the VMI does not
 *   disable ACPI), else Kill.
 * - Off (Shutoff/Crashed) with a known reason: the phase, then Delete (its undefine ends the launcher's final wait).
 *   Shutoff without a reason is a domain defined but not started yet: nothing to do; Shutoff/Migrated is a guest that
 *   left by live migration: nothing either (its pod is deleted instead).
 */
export class HandlerDecisions {
  private asked = new Set<HandlerAction>();
  /** The phase decided so far. */
  phase: VmiPhase | undefined;

  constructor(
    private readonly gracePeriodSeconds: number,
    private readonly acpiFeature: boolean,
  ) {}

  private get acpi(): boolean {
    return this.acpiFeature && this.gracePeriodSeconds !== 0;
  }

  next(e: DomainEventSummary): HandlerDecision {
    if (e.deletion || e.status === '' || e.status === 'NoState') return {};
    const off = e.status === 'Shutoff' || e.status === 'Crashed';
    if (off) {
      if (e.reason === '' || e.reason === 'Unknown') return {};
      // Migrated away: the VMI lives on in the target pod. virt-handler leaves this domain alone; the source pod is
      // deleted once the migration is recorded complete (the migration runner does that).
      if (e.reason === 'Migrated') return {};
      this.phase ??= phaseOf(e.reason, this.acpi);
      return { action: this.once('delete'), phase: this.phase };
    }
    if (e.markedForGracefulShutdown) return { action: this.once(this.acpi ? 'shutdown' : 'kill') };
    return {};
  }

  private once(action: HandlerAction): HandlerAction | undefined {
    if (this.asked.has(action)) return undefined;
    this.asked.add(action);
    return action;
  }
}
