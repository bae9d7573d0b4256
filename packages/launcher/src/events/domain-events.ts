// Domain event monitoring (docs/behaviour.md#start-up, docs/cmd-contract.md#domain-events): each libvirt lifecycle event and
// each metadata change becomes a Notify/HandleDomainEvent with the domain's current JSON. A vanished
// domain is reported as KubeVirt does: MODIFIED, Status NoState/NonExistent, deletionTimestamp set.
import { EventEmitter } from 'node:events';
import type { Connection, DomainEvent } from '../adapters/libvirt.js';
import { domainJson } from '../domain/domain-json.js';
import type { MetadataCache } from '../domain/metadata.js';
import { STATE } from '../domain/state.js';
import { errorMessage, isNoDomain } from '../errors.js';
import { log } from '../log.js';
import type { Notifier } from './notifier.js';

export type WatchType = 'ADDED' | 'MODIFIED';

export interface SentEvent {
  type: WatchType;
  status: string;
  deleted: boolean;
}

/** Emits 'added' (first ADDED), 'deleted' (first MODIFIED with deletionTimestamp) and 'event' (every one). */
export class DomainEventMonitor extends EventEmitter {
  private seenLibvirtEvent = false;
  /** True once a MODIFIED event with deletionTimestamp reached the handler. */
  deletedSent = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly onDomainEvent = (ev: DomainEvent): void => this.enqueue(ev);

  constructor(
    /** Empty: the launcher was started without --name; follow the first domain that shows up. */
    private domainName: string,
    private readonly conn: () => Connection,
    private readonly metadata: MetadataCache,
    private readonly notifier: Notifier,
  ) {
    super();
    metadata.onChange(() => {
      if (this.seenLibvirtEvent) this.enqueue(undefined);
    });
  }

  /** (Re)registers on a connection: called after every (re)connect. */
  attach(conn: Connection): void {
    conn.off('domainEvent', this.onDomainEvent);
    conn.on('domainEvent', this.onDomainEvent);
    log.info('Registered libvirt event notify callback');
  }

  /** Events are handled in order, one at a time; a slow handler never reorders them. */
  private enqueue(ev: DomainEvent | undefined): void {
    if (ev && this.domainName === '') this.domainName = ev.name;
    if (ev && ev.name !== this.domainName) return;
    if (ev) this.seenLibvirtEvent = true;
    this.chain = this.chain
      .then(() => this.handle(ev))
      .catch((err: unknown) => {
        log.error('Failed to send domain event', { reason: errorMessage(err) });
      });
  }

  private async handle(ev: DomainEvent | undefined): Promise<void> {
    const type: WatchType = ev && (ev.event === 'defined' || ev.event === 'started') ? 'ADDED' : 'MODIFIED';
    let state: number = STATE.noState;
    let reason = 0;
    let xml: string | undefined;
    let nonExistent = false;
    try {
      const dom = await this.conn().lookupDomainByName(this.domainName);
      ({ state, reason } = await dom.getState());
      xml = await dom.getXMLDesc({ inactive: state === STATE.shutoff }).catch(() => undefined);
    } catch (err) {
      if (!isNoDomain(err)) throw err;
      nonExistent = true;
    }
    const gone = ev?.event === 'undefined' || ev?.event === 'stopped' || nonExistent;
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

  /** Resolves once every queued event was handled. */
  drain(): Promise<void> {
    return this.chain;
  }
}
