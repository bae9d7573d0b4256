// Rate-limited log of reaped orphans. One line per orphan is useful when a few processes die
// (QEMU, a helper), but a burst of thousands of short-lived processes would turn PID 1 into a
// log writer: the first `perWindow` orphans of each window get their own line, the rest are
// counted and reported in one summary line when the window ends (or at flush()).
import type { Logger } from './log.js';
import type { ReapResult } from './native.js';

export interface ReapLogOptions {
  /** Orphans logged one by one per window. */
  perWindow?: number;
  windowMs?: number;
  /** Clock, injectable so that the windowing can be tested without waiting. */
  now?: () => number;
}

export const DEFAULT_REAP_LINES_PER_WINDOW = 20;
export const DEFAULT_REAP_LOG_WINDOW_MS = 1_000;

/** The per-orphan line, with its exit code or signal (as KubeVirt's "Reaped pid P with status S"). */
export function reapedMessage(r: ReapResult): string {
  const how = r.exitCode !== null ? `exit code ${r.exitCode}` : `signal ${r.signal}`;
  return `Reaped pid ${r.pid} with status ${r.status} (${how})`;
}

export function summaryMessage(count: number, perWindow: number): string {
  return `Reaped ${count} more orphans, not logged one by one (at most ${perWindow} lines per window)`;
}

export class ReapLog {
  private readonly perWindow: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private windowStart = -Infinity;
  private loggedInWindow = 0;
  private suppressed = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Logger,
    options: ReapLogOptions = {},
  ) {
    this.perWindow = options.perWindow ?? DEFAULT_REAP_LINES_PER_WINDOW;
    this.windowMs = options.windowMs ?? DEFAULT_REAP_LOG_WINDOW_MS;
    this.now = options.now ?? Date.now;
  }

  record(result: ReapResult): void {
    const now = this.now();
    if (now - this.windowStart >= this.windowMs) {
      this.flush();
      this.windowStart = now;
      this.loggedInWindow = 0;
    }
    if (this.loggedInWindow < this.perWindow) {
      this.loggedInWindow++;
      this.log.info(reapedMessage(result));
      return;
    }
    this.suppressed++;
    // The summary must come even if no orphan follows to close the window; unref'd so that it
    // never keeps the process alive (the monitor flushes on its way out).
    this.timer ??= setTimeout(() => this.flush(), this.windowMs).unref();
  }

  /** Writes the summary of the orphans not logged one by one, if any. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.suppressed === 0) return;
    this.log.info(summaryMessage(this.suppressed, this.perWindow));
    this.suppressed = 0;
  }
}
