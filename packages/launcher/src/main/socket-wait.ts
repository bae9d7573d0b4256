// Waiting for a daemon to bind its Unix socket: the launcher's connection, its first connection, the capability
// warm-up and the virtlogd gate all poll for the file before they dial, each with its own bound and stop condition.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface SocketWaitOptions {
  timeoutMs: number;
  /** How often to look (a daemon binds its socket ~0.1–0.3 s after its spawn). */
  pollMs?: number;
  /** Checked before each look: true ends the wait at once. */
  shouldStop?: () => boolean;
}

/** Whether the path exists, once it does, or false when the wait timed out or was stopped first. */
export async function untilSocketExists(path: string, options: SocketWaitOptions): Promise<boolean> {
  const { timeoutMs, pollMs = 10, shouldStop = () => false } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(path)) return true;
    if (shouldStop() || Date.now() >= deadline) return false;
    await sleep(pollMs);
  }
}
