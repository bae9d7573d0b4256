// The source's migration monitor: samples the job every 400 ms (KubeVirt's period) while migrateToURI3 runs, feeds
// the ConvergenceTracker and carries out what it decides (post-copy, pause, abort). Logs progress every 3 s.
import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import type { MigrationDomain } from '../adapters/libvirt.js';
import type { ConvergenceTracker } from './convergence.js';

const SAMPLE_MS = 400;
const LOG_EVERY = 8;

export interface ConvergenceActions {
  startPostCopy(): Promise<void>;
  pause(): Promise<void>;
  abort(why: string): void;
}

export class MigrationMonitor {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> = Promise.resolve();
  private samples = 0;
  private stopped = false;

  constructor(
    private readonly dom: Pick<MigrationDomain, 'getJobStats'>,
    private readonly tracker: ConvergenceTracker,
    private readonly unboundedJob: number,
    private readonly actions: ConvergenceActions,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      // One sample at a time: a slow daemon must not pile up calls.
      this.inFlight = this.inFlight.then(() => this.sample());
    }, SAMPLE_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.inFlight;
  }

  private async sample(): Promise<void> {
    if (this.stopped) return;
    let running = false;
    let remaining: number | undefined;
    try {
      const job = await this.dom.getJobStats();
      running = job.type === this.unboundedJob;
      const r = job.stats.data_remaining;
      remaining = typeof r === 'number' ? r : undefined;
      if (running && this.samples++ % LOG_EVERY === 0) {
        const mib = (k: string) => Math.round(Number(job.stats[k] ?? 0) / 2 ** 20);
        log.info('Migration info', {
          TimeElapsed: job.stats.time_elapsed,
          DataProcessedMiB: mib('data_processed'),
          DataRemainingMiB: mib('data_remaining'),
          DataTotalMiB: mib('data_total'),
          Iteration: job.stats.memory_iteration,
        });
      }
    } catch (err) {
      log.info('failed to get domain job info', { reason: errorMessage(err) });
    }
    if (this.stopped) return;
    const action = this.tracker.observe({ nowMs: Date.now(), running, dataRemaining: remaining });
    try {
      if (action.kind === 'postcopy') {
        log.info('Starting post copy mode for migration');
        await this.actions.startPostCopy();
        this.tracker.enteredPostCopy();
      } else if (action.kind === 'pause') {
        log.info('Pausing the guest to allow migration to complete');
        await this.actions.pause();
        this.tracker.paused();
      } else if (action.kind === 'abort') {
        this.actions.abort(
          action.reason === 'stuck'
            ? `Aborting migration: stuck for ${action.seconds} seconds`
            : `Aborting migration: not completed after ${action.seconds} seconds`,
        );
      }
    } catch (err) {
      log.error(`migration ${action.kind} failed`, { reason: errorMessage(err) });
    }
  }
}
