// What every phase of `virt-pod run` shares: the arguments, the phase clock, the cleanup stack, the Ctrl-C signal,
// and what later phases learn (the pod process, the launcher client, how the sync and the domain went).
import type { LauncherClient } from '@virt-launcher/launcher';
import type { RunArgs } from './args.js';
import { CleanupStack } from './cleanup.js';
import { PhaseClock } from './phases.js';
import type { PodProcess } from './pod-process.js';
import { InterruptedError } from './run-errors.js';

export class RunState {
  readonly clock: PhaseClock;
  readonly cleanup = new CleanupStack();
  readonly abort = new AbortController();
  /** When the run began (before the VMI is read): phases overlap, so the time to a milestone is measured from here. */
  readonly startedAt = performance.now();
  /** Resolves on Ctrl-C or SIGTERM. */
  readonly aborted: Promise<'aborted'>;
  pod: PodProcess | undefined;
  launcher: LauncherClient | undefined;
  syncFailed = false;
  /** The status of the last domain event the handler stand-in saw. */
  domainStatus = '';
  /** Every line of the guest's serial console, for phases that follow the guest (the migration's alive lines). */
  onConsoleLine: ((line: string) => void) | undefined;

  constructor(
    readonly args: RunArgs,
    readonly repo: string,
    readonly print: (line: string) => void,
  ) {
    this.clock = new PhaseClock(print);
    this.aborted = new Promise((r) => this.abort.signal.addEventListener('abort', () => r('aborted')));
  }

  readonly onSignal = (): void => {
    if (!this.abort.signal.aborted) this.print('interrupted: shutting the pod down');
    this.abort.abort();
  };

  /** Ends `work` early on Ctrl-C: what it made is already on the cleanup stack. */
  async interruptible<T>(phase: string, work: Promise<T>): Promise<T> {
    const first = await Promise.race([work.then((value) => ({ value })), this.aborted]);
    if (first === 'aborted') throw new InterruptedError(`interrupted during ${phase}`);
    return first.value;
  }

  /** A named, timed, interruptible phase. */
  async phase<T>(name: string, work: () => Promise<T>): Promise<T> {
    if (this.abort.signal.aborted) throw new InterruptedError(`interrupted before ${name}`);
    return this.interruptible(name, this.clock.run(name, work));
  }

  async runCleanup(): Promise<void> {
    await this.cleanup.run((what, err) => this.print(`cleanup of ${what} failed: ${(err as Error).message}`));
  }
}
