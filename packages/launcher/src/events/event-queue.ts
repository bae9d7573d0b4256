// The order and the bounds of the domain events the launcher sends, as KubeVirt's notifier keeps them
// (pkg/virt-launcher/notify-client/client.go, StartDomainNotifier): one event is handled at a time, in arrival
// order. libvirt's callbacks wait in a fixed number of slots (ten there); one arriving while all are taken is
// dropped with a log line, so a stuck handler never makes the queue grow without end. A refresh (the metadata or
// the guest agent's facts changed) is not an event of its own but a request to send the current state: it waits in
// one slot of its own, and a libvirt event that is handled first makes it moot, because every handled event reads
// the domain and the metadata afresh (KubeVirt's metadata cache signals through a one-slot channel that each event
// resets).
import { errorMessage } from '../errors.js';
import { log } from '../log.js';

/** Slots for libvirt events waiting behind the one being sent (the buffer of KubeVirt's event channel). */
export const LIBVIRT_EVENT_SLOTS = 10;

export class DomainEventQueue<E> {
  private chain: Promise<void> = Promise.resolve();
  private waiting = 0;
  private refreshWaiting = false;

  constructor(
    /** Sends one event; `undefined` sends the domain's current state for a refresh. */
    private readonly handle: (event: E | undefined) => Promise<void>,
    private readonly slots = LIBVIRT_EVENT_SLOTS,
  ) {}

  /** Queues a libvirt event; false (and a log line) when every slot is taken and the event is dropped. */
  pushEvent(event: E): boolean {
    if (this.waiting >= this.slots) {
      log.info(`libvirt event queue is full (${this.slots} waiting): event dropped`);
      return false;
    }
    this.waiting++;
    this.run(() => {
      this.waiting--;
      this.refreshWaiting = false;
      return this.handle(event);
    });
    return true;
  }

  /** Queues a send of the current state, unless one is already waiting. */
  pushRefresh(): void {
    if (this.refreshWaiting) return;
    this.refreshWaiting = true;
    this.run(async () => {
      if (!this.refreshWaiting) return; // an event handled meanwhile sent the same state
      this.refreshWaiting = false;
      await this.handle(undefined);
    });
  }

  /** Resolves once everything queued so far was handled. */
  drain(): Promise<void> {
    return this.chain;
  }

  private run(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((err: unknown) => {
      log.error('Failed to send domain event', { reason: errorMessage(err) });
    });
  }
}
