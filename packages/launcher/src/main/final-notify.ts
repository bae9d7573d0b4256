// waitForFinalNotify (docs/behaviour.md#start-up, step 15): the handler must learn that the domain is gone before the
// launcher exits. Up to 15 s for the deletion event; else kill the domain and wait up to 30 s more.
import type { DomainEventMonitor } from '../events/domain-events.js';
import { log } from '../log.js';

function waitFor(monitor: DomainEventMonitor, event: string, ms: number, already: () => boolean): Promise<boolean> {
  if (already()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      monitor.off(event, on);
      resolve(false);
    }, ms);
    const on = () => {
      clearTimeout(timer);
      resolve(true);
    };
    monitor.once(event, on);
  });
}

export async function waitForFinalNotify(
  monitor: DomainEventMonitor,
  kill: () => Promise<void>,
  firstMs = 15_000,
  secondMs = 30_000,
): Promise<void> {
  log.info('Waiting on final notifications to be sent to virt-handler.');
  if (await waitFor(monitor, 'deleted', firstMs, () => monitor.deletedSent)) {
    log.info('Final Delete notification sent');
    return;
  }
  log.info('Timed out waiting for final delete notification. Attempting to kill domain');
  await kill().catch((err: unknown) => log.error('kill failed', { reason: String(err) }));
  if (await waitFor(monitor, 'event', secondMs, () => false))
    log.info('Final Delete notification sent after calling kill.');
  else log.info('Timed out waiting for final delete notification after calling kill.');
}
