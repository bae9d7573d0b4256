// Domain event monitoring (docs/behaviour.md#start-up, docs/cmd-contract.md#domain-events): each libvirt callback
// KubeVirt's notifier registers (lifecycle, device added and removed, memory-device size change, job completed, guest
// agent lifecycle; pkg/virt-launcher/notify-client/client.go, StartDomainNotifier) and each metadata change becomes a
// Notify/HandleDomainEvent with the domain's current JSON, so the handler sees a hot-plug at once rather than at its
// resync. A vanished domain is reported as KubeVirt does: MODIFIED, Status NoState/NonExistent, deletionTimestamp
// set. A domain that is merely off (stopped, still defined) carries no deletionTimestamp: the handler must still
// see it to decide the VMI's phase (Succeeded or Failed) and then ask for DeleteVirtualMachine
// (docs/cmd-contract.md#domain-events). Order and bounds: event-queue.ts.
import { EventEmitter } from 'node:events';
import type { Connection, DomainEvent } from '../adapters/libvirt.js';
import { domainJson } from '../domain/domain-json.js';
import type { MetadataCache } from '../domain/metadata.js';
import { STATE } from '../domain/state.js';
import { isNoDomain } from '../errors.js';
import { log } from '../log.js';
import { DomainEventQueue } from './event-queue.js';
import type { Notifier } from './notifier.js';

export type WatchType = 'ADDED' | 'MODIFIED';

export interface SentEvent {
  type: WatchType;
  status: string;
  deleted: boolean;
}

/**
 * The callbacks besides the lifecycle one that KubeVirt's notifier answers with the domain's current state
 * (MODIFIED; their payload is not sent): a hot-plugged or unplugged disk or NIC, a virtio-mem device that grew or
 * shrank, a finished job (migration, dump), the guest agent connecting or leaving.
 */
export const STATE_CALLBACKS = [
  'deviceAdded',
  'deviceRemoved',
  'memoryDeviceSizeChange',
  'jobCompleted',
  'agentLifecycle',
] as const;
export type StateCallback = (typeof STATE_CALLBACKS)[number];

/** A libvirt callback as it waits to be sent; only a lifecycle event decides ADDED and deletion. */
interface QueuedEvent {
  callback: StateCallback | 'lifecycle';
  lifecycle?: DomainEvent;
}

/** Emits 'added' (first ADDED), 'deleted' (first MODIFIED with deletionTimestamp) and 'event' (every one). */
export class DomainEventMonitor extends EventEmitter {
  private seenLibvirtEvent = false;
  /** True once a MODIFIED event with deletionTimestamp reached the handler. */
  deletedSent = false;
  private readonly queue = new DomainEventQueue<QueuedEvent>((q) => this.handle(q?.lifecycle));
  private readonly onDomainEvent = (ev: DomainEvent): void =>
    this.enqueue(ev.name, { callback: 'lifecycle', lifecycle: ev });
  private readonly stateListeners = new Map(
    STATE_CALLBACKS.map((callback) => [callback, (ev: { name: string }) => this.enqueue(ev.name, { callback })]),
  );

  constructor(
    /** Empty: the launcher was started without --name; follow the first domain that shows up. */
    private domainName: string,
    private readonly conn: () => Connection,
    private readonly metadata: MetadataCache,
    private readonly notifier: Notifier,
  ) {
    super();
    metadata.onChange(() => this.refresh());
  }

  private attachedOnce = false;

  /**
   * (Re)registers on a connection: called after every (re)connect. Events libvirt emitted while the connection
   * was down are lost, so after a reconnect the handler gets one event with the domain's current state.
   */
  attach(conn: Connection): void {
    conn.off('domainEvent', this.onDomainEvent);
    conn.on('domainEvent', this.onDomainEvent);
    for (const [callback, listener] of this.stateListeners) {
      conn.off(callback, listener);
      conn.on(callback, listener);
    }
    log.info('Registered libvirt event notify callback');
    if (this.attachedOnce && this.seenLibvirtEvent) {
      log.info(
        `Libvirt reconnected, domain ${this.domainName}. Event callbacks re-registered, sending its current state.`,
      );
      this.queue.pushRefresh();
    }
    this.attachedOnce = true;
  }

  /** Events are handled in order, one at a time; a slow handler never reorders them. */
  private enqueue(name: string, event: QueuedEvent): void {
    if (this.domainName === '') this.domainName = name;
    if (name !== this.domainName) return;
    this.seenLibvirtEvent = true;
    if (event.callback !== 'lifecycle') log.info(`libvirt ${event.callback} event received for domain ${name}`);
    this.queue.pushEvent(event);
  }

  private async handle(ev: DomainEvent | undefined): Promise<void> {
    const type = watchType(ev);
    let state: number = STATE.noState;
    let reason = 0;
    let xml: string | undefined;
    let nonExistent = false;
    try {
      const dom = await this.conn().lookupDomainByName(this.domainName);
      ({ stateCode: state, reasonCode: reason } = await dom.getState());
      xml = await dom.getXMLDesc({ inactive: state === STATE.shutoff }).catch(() => undefined);
    } catch (err) {
      if (!isNoDomain(err)) throw err;
      nonExistent = true;
    }
    const gone = endsDomain(ev) && nonExistent;
    const json = domainJson({
      domainName: this.domainName,
      xml,
      state,
      reason,
      metadata: this.metadata.get(),
      nonExistent,
      deletionTimestamp: gone ? new Date().toISOString() : undefined,
    });
    await this.notifier.sendDomainEvent({
      domainJSON: Buffer.from(JSON.stringify(json)),
      statusJSON: Buffer.alloc(0),
      eventType: type,
    });
    const sent: SentEvent = { type, status: String((json.Status as { Status: string }).Status), deleted: gone };
    this.emit('event', sent);
    if (type === 'ADDED') this.emit('added', sent);
    if (gone) {
      this.deletedSent = true;
      this.emit('deleted', sent);
    }
  }

  /**
   * Sends the domain's current state (MODIFIED) once the domain was seen: e.g. the guest agent's facts changed.
   * A refresh already waiting covers this one.
   */
  refresh(): void {
    if (this.seenLibvirtEvent) this.queue.pushRefresh();
  }

  /** Resolves once every queued event was handled. */
  drain(): Promise<void> {
    return this.queue.drain();
  }
}

/** libvirt's detail of a `stopped` event after an outbound migration: the domain lives on elsewhere. */
const STOPPED_MIGRATED = 'migrated';

/**
 * ADDED once per domain: when libvirt first defines it (defined/added), or when it arrives by migration
 * (started/migrated). A redefinition, a (re)start and everything else is MODIFIED.
 */
export function watchType(ev: Pick<DomainEvent, 'event' | 'detail'> | undefined): WatchType {
  if (ev?.event === 'defined' && ev.detail === 'added') return 'ADDED';
  if (ev?.event === 'started' && ev.detail === 'migrated') return 'ADDED';
  return 'MODIFIED';
}

/** Events after which the domain may be gone: only then does a failed lookup mean "deleted". */
export function endsDomain(ev: Pick<DomainEvent, 'event' | 'detail'> | undefined): boolean {
  if (ev?.event === 'undefined') return true;
  return ev?.event === 'stopped' && ev.detail !== STOPPED_MIGRATED;
}
