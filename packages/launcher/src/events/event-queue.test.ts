// The queue's bounds follow KubeVirt's notifier (pkg/virt-launcher/notify-client/client.go, StartDomainNotifier):
// ten waiting libvirt events, more dropped; metadata signals coalesce in one slot that a handled event clears.
import { describe, expect, it } from 'vitest';
import { DomainEventQueue, LIBVIRT_EVENT_SLOTS } from './event-queue.js';

/** A handler that records what it sent and holds the first call until `release()`. */
function gatedHandler() {
  const sent: Array<string | undefined> = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const firstStarted = new Promise<void>((r) => (started = r));
  const handle = async (event: string | undefined) => {
    if (sent.length === 0) {
      started();
      await gate;
    }
    sent.push(event);
  };
  return { sent, release, firstStarted, handle };
}

describe('DomainEventQueue', () => {
  it('keeps arrival order and drops libvirt events beyond its slots while one is being sent', async () => {
    const h = gatedHandler();
    const queue = new DomainEventQueue<string>(h.handle);
    expect(queue.pushEvent('e0')).toBe(true);
    await h.firstStarted;
    const accepted = Array.from({ length: LIBVIRT_EVENT_SLOTS + 2 }, (_, i) => queue.pushEvent(`e${i + 1}`));
    expect(accepted.filter(Boolean)).toHaveLength(LIBVIRT_EVENT_SLOTS);
    expect(accepted.slice(LIBVIRT_EVENT_SLOTS)).toEqual([false, false]);
    h.release();
    await queue.drain();
    expect(h.sent).toEqual(Array.from({ length: LIBVIRT_EVENT_SLOTS + 1 }, (_, i) => `e${i}`));
    // Once the slots are free again, events are taken.
    expect(queue.pushEvent('later')).toBe(true);
    await queue.drain();
    expect(h.sent.at(-1)).toBe('later');
  });

  it('sends one refresh for several requests made while it waits', async () => {
    const h = gatedHandler();
    const queue = new DomainEventQueue<string>(h.handle);
    queue.pushEvent('e0');
    await h.firstStarted;
    queue.pushRefresh();
    queue.pushRefresh();
    queue.pushRefresh();
    h.release();
    await queue.drain();
    expect(h.sent).toEqual(['e0', undefined]);
  });

  it('skips a waiting refresh when a libvirt event queued before it is sent first', async () => {
    const h = gatedHandler();
    const queue = new DomainEventQueue<string>(h.handle);
    queue.pushEvent('e0');
    await h.firstStarted;
    queue.pushEvent('e1');
    queue.pushRefresh();
    h.release();
    await queue.drain();
    expect(h.sent).toEqual(['e0', 'e1']);
    // A refresh asked for after that event started is sent.
    queue.pushRefresh();
    await queue.drain();
    expect(h.sent).toEqual(['e0', 'e1', undefined]);
  });

  it('goes on after a send failed', async () => {
    const sent: string[] = [];
    const queue = new DomainEventQueue<string>(async (e) => {
      if (e === 'bad') throw new Error('handler refused');
      sent.push(e ?? 'refresh');
    });
    queue.pushEvent('bad');
    queue.pushEvent('good');
    await queue.drain();
    expect(sent).toEqual(['good']);
  });
});
