// The monitor's signal handling, installed before anything else runs.
//
// As PID 1 the kernel discards every signal for which the process has no handler, so a
// termination signal that arrives while the monitor is still starting (before COMMAND exists)
// would be lost, and a pod deleted during start-up would run until the kubelet's SIGKILL. The
// gate therefore listens from the first moment, holds what arrives until COMMAND is spawned,
// then delivers it (as SIGTERM, like every forwarded signal) and forwards later ones directly.
//
// SIGUSR1 is caught too: without a listener Node answers it by opening its inspector on
// 127.0.0.1:9229, and anything that may signal PID 1 could then run code in it. A listener
// replaces that default. The signal is only logged, not forwarded: COMMAND is a Node process too,
// and KubeVirt's Go monitor ignores SIGUSR1 as well (the Go runtime drops signals nobody asked for).
import type { ChildProcess } from 'node:child_process';
import type { Logger } from './log.js';

/** Signals that ask the launcher to shut down; each is forwarded as SIGTERM. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'];
/** Caught so that Node never opens its inspector on it; logged and otherwise ignored. */
export const INSPECTOR_SIGNAL: NodeJS.Signals = 'SIGUSR1';

export class SignalGate {
  private readonly held: NodeJS.Signals[] = [];
  private heldUsr1 = 0;
  private child: ChildProcess | undefined;
  private log: Logger | undefined;
  private readonly listeners: [NodeJS.Signals, () => void][];

  constructor() {
    this.listeners = [
      ...FORWARDED_SIGNALS.map((sig) => [sig, () => this.onForwarded(sig)] as [NodeJS.Signals, () => void]),
      [INSPECTOR_SIGNAL, () => this.onInspectorSignal()],
    ];
    for (const [sig, listener] of this.listeners) process.on(sig, listener);
  }

  /** Signals received so far that wait for COMMAND. */
  get pending(): readonly NodeJS.Signals[] {
    return this.held;
  }

  /** Sets where messages go before COMMAND exists (signals held so far are reported then). */
  setLogger(log: Logger): void {
    this.log = log;
    if (this.heldUsr1 > 0) this.logUsr1(this.heldUsr1);
    this.heldUsr1 = 0;
  }

  /**
   * From now on signals go to `child`. Signals held until now are delivered at once: one SIGTERM
   * for all of them, as several pending SIGTERMs would be merged by the kernel anyway.
   */
  attach(child: ChildProcess, log: Logger): void {
    this.setLogger(log);
    this.child = child;
    if (this.held.length === 0) return;
    const first = this.held[0] as NodeJS.Signals;
    log.info(`received ${this.held.join(', ')} before virt-launcher started: delivering it now`);
    this.held.length = 0;
    this.signalChild(first);
  }

  /**
   * Removes the forwarding listeners. SIGUSR1's stays: removing the last listener would give the
   * signal back to its default action (terminate the process) rather than to nothing.
   */
  close(): void {
    for (const [sig, listener] of this.listeners) if (sig !== INSPECTOR_SIGNAL) process.off(sig, listener);
  }

  private onForwarded(sig: NodeJS.Signals): void {
    if (!this.child) {
      this.held.push(sig);
      return;
    }
    this.signalChild(sig);
  }

  private signalChild(sig: NodeJS.Signals): void {
    const child = this.child as ChildProcess;
    const log = this.log as Logger;
    log.info('signalling virt-launcher to shut down');
    if (child.exitCode !== null || child.signalCode !== null || !child.kill('SIGTERM')) {
      log.error(`received signal ${sig} but can't signal virt-launcher to shut down`);
    }
  }

  private onInspectorSignal(): void {
    if (!this.log) {
      this.heldUsr1++;
      return;
    }
    this.logUsr1(1);
  }

  private logUsr1(count: number): void {
    const times = count > 1 ? ` (${count} times)` : '';
    this.log?.warning(`ignored ${INSPECTOR_SIGNAL}${times}: this process opens no debugger on a signal`);
  }
}

/** The gate cli.ts installs first thing; library users of runMonitor get one of their own. */
export function installSignalGate(): SignalGate {
  return new SignalGate();
}
