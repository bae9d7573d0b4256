// waitForDomainUUID (docs/behaviour.md#start-up, step 13): the launcher waits until the handler has defined the domain;
// none within --qemu-timeout is fatal. A stop signal ends the wait early (nothing to monitor then).
import type { Connection } from '../adapters/libvirt.js';
import { LauncherPanic } from '../errors.js';
import type { DomainEventMonitor } from '../events/domain-events.js';
import type { StopSignal } from './signals.js';

export async function waitForDomain(
  domainName: string,
  conn: () => Connection,
  monitor: DomainEventMonitor,
  stop: StopSignal,
  timeoutMs: number,
  pollMs = 1000,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let wake: () => void = () => {};
  // KubeVirt takes the domain from the ADDED event itself, not from a later listing: a domain undefined again at
  // once (a start that failed) still counts, so the launcher goes on to wait for its deletion to reach the handler.
  let added = false;
  const onAdded = () => {
    added = true;
    wake();
  };
  monitor.on('added', onAdded);
  try {
    while (!stop.stopped) {
      if (added && domainName) return domainName;
      const domains = await conn()
        .listAllDomains()
        .catch(() => []);
      for (const d of domains) {
        // With --name only our own domain counts (an external libvirt may hold others).
        if (domainName && d.name !== domainName) continue;
        if ((await d.getUUID()) !== '') return d.name;
      }
      if (added && domainName) return domainName;
      if (Date.now() >= deadline) throw new LauncherPanic('timed out waiting for domain to be defined');
      await Promise.race([
        new Promise<void>((r) => {
          wake = r;
          setTimeout(r, Math.min(pollMs, Math.max(0, deadline - Date.now())));
        }),
        stop.received,
      ]);
    }
    return undefined;
  } finally {
    monitor.off('added', onAdded);
  }
}
