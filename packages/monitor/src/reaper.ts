// The orphan reaper: makes this process a child subreaper and reaps every zombie child that it
// did not spawn through child_process. Node's own children are left to libuv, whose waitpid on
// their exact pid delivers the 'exit' event; reaping them here would steal that status.
import { loadAddon, nativeCall, type ReapResult } from './native.js';

export type { ReapResult } from './native.js';

export interface ReaperOptions {
  /** Called once per reaped orphan. */
  onReaped?: (result: ReapResult) => void;
  /** Period of the safety scan that catches a coalesced or missed SIGCHLD. */
  safetyIntervalMs?: number;
}

export const DEFAULT_SAFETY_INTERVAL_MS = 5_000;

/** Makes this process a child subreaper (no-op as far as the kernel cares when it is PID 1). */
export function becomeSubreaper(): void {
  const native = loadAddon();
  nativeCall('prctl(PR_SET_CHILD_SUBREAPER)', () => native.setChildSubreaper());
}

export function isSubreaper(): boolean {
  const native = loadAddon();
  return nativeCall('prctl(PR_GET_CHILD_SUBREAPER)', () => native.isChildSubreaper());
}

/** Pids of zombies whose parent is this process, Node's own children included. */
export function zombieChildren(): number[] {
  const native = loadAddon();
  return nativeCall('scan /proc', () => native.zombieChildren());
}

/** waitpid(pid, WNOHANG) on one pid; null when it is not a waitable child. */
export function reapPid(pid: number): ReapResult | null {
  const native = loadAddon();
  return nativeCall('waitpid', () => native.reap(pid));
}

/** The /proc scan: finds orphans behind a waitable child of Node's that the fast path cannot pass. */
function reapByScan(ownChildren: ReadonlySet<number>, reaped: ReapResult[]): void {
  for (;;) {
    const found = zombieChildren().filter((pid) => !ownChildren.has(pid));
    let progress = false;
    for (const pid of found) {
      const result = reapPid(pid);
      if (result) {
        reaped.push(result);
        progress = true;
      }
    }
    if (!progress) return;
  }
}

/**
 * Reaps every zombie child except the pids in `ownChildren` (those spawned by Node, which libuv
 * waits for), until none is left. The native loop asks the kernel for the next exited child, so
 * a burst costs one system call pair per zombie; /proc is read only when the kernel's next
 * waitable child is one of Node's own, which libuv has not collected yet.
 */
export function reapOrphans(ownChildren: ReadonlySet<number>): ReapResult[] {
  const native = loadAddon();
  const { reaped, blockedBy } = nativeCall('waitid', () => native.reapWaitable([...ownChildren]));
  if (blockedBy !== null) reapByScan(ownChildren, reaped);
  return reaped;
}

/** While orphans keep dying, the reaper polls at this period instead of listening for SIGCHLD. */
export const BURST_POLL_MS = 5;

export class OrphanReaper {
  private readonly own = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private burstPoll: NodeJS.Timeout | undefined;
  private listening = false;
  // SIGCHLDs are coalesced into one pass: a pass drains every zombie there is, so a second pass
  // queued behind it would only find what arrived since, which its own SIGCHLD covers.
  private readonly onSignal = (): void => {
    this.scheduled ??= setImmediate(() => {
      this.scheduled = undefined;
      this.pass();
    });
  };

  constructor(private readonly options: ReaperOptions = {}) {}

  /** Declares a pid spawned by Node so that the reaper never waits for it. */
  protect(pid: number): void {
    this.own.add(pid);
  }

  release(pid: number): void {
    this.own.delete(pid);
  }

  start(): void {
    if (this.timer) return;
    becomeSubreaper();
    this.listen(true);
    this.timer = setInterval(this.onSignal, this.options.safetyIntervalMs ?? DEFAULT_SAFETY_INTERVAL_MS);
    // The timer is a safety net, not a reason to stay alive.
    this.timer.unref();
    this.scan();
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.burstPoll) clearTimeout(this.burstPoll);
    this.burstPoll = undefined;
    this.listen(false);
  }

  scan(): ReapResult[] {
    const reaped = reapOrphans(this.own);
    for (const result of reaped) this.options.onReaped?.(result);
    return reaped;
  }

  private listen(on: boolean): void {
    if (on === this.listening) return;
    if (on) process.on('SIGCHLD', this.onSignal);
    else process.off('SIGCHLD', this.onSignal);
    this.listening = on;
  }

  /**
   * One drain. A pass that reaped something may be the start of a burst: every further SIGCHLD
   * would cost a JavaScript callback (the kernel delivers nearly each one, libuv forwards each),
   * so the listener is dropped and the reaper polls every BURST_POLL_MS until a pass finds
   * nothing. Then it listens again and drains once more, for what died before it listened.
   */
  private pass(): void {
    if (!this.timer) return;
    if (this.scan().length > 0) {
      this.listen(false);
      this.burstPoll ??= setTimeout(() => {
        this.burstPoll = undefined;
        this.pass();
      }, BURST_POLL_MS).unref();
      return;
    }
    if (this.burstPoll === undefined && !this.listening) {
      this.listen(true);
      this.scan();
    }
  }
}
