// What the source's migration monitor does with each job sample: KubeVirt's legacy convergence path (no stall
// detector). Pure bookkeeping, no libvirt: the monitor (monitor.ts) feeds samples and carries out the action.
//   post-copy mode               nothing (the target already runs the guest; aborting would lose it)
//   past the completion time and allowWorkloadDisruption
//                                post-copy when allowed, else pause the guest (and double the allowed time)
//   no progress for progressTimeout seconds   abort ("stuck")
//   past the completion time     abort ("timeout")
import type { MigrationOptions } from './options.js';

export type MigrationMode = 'PreCopy' | 'PostCopy' | 'Paused';

export type ConvergenceAction =
  | { kind: 'none' }
  | { kind: 'postcopy' }
  | { kind: 'pause' }
  | { kind: 'abort'; reason: 'stuck' | 'timeout'; seconds: number };

export interface JobSample {
  nowMs: number;
  /** True while libvirt reports the migration job as running (JobType.UNBOUNDED). */
  running: boolean;
  /** `data_remaining` in bytes, when the sample has it. */
  dataRemaining?: number;
}

/** KubeVirt's data size for the completion timeout: memory (+ local disks when they are copied), in whole GB up. */
export function migrationDataSizeGB(memoryBytes: number, copiedDiskBytes: number): number {
  return Math.ceil((memoryBytes + copiedDiskBytes) / 1e9);
}

export class ConvergenceTracker {
  mode: MigrationMode = 'PreCopy';
  abortInProgress = false;
  /** Seconds the migration may take before it is helped or aborted; 0 = no limit. */
  acceptableCompletionSeconds: number;
  private lastProgressMs: number;
  private watermark = 0;
  private remaining = 0;

  constructor(
    private readonly options: Pick<
      MigrationOptions,
      'progressTimeout' | 'allowPostCopy' | 'allowWorkloadDisruption'
    > & {
      completionTimeoutPerGiB: number;
    },
    dataSizeGB: number,
    private readonly startMs: number,
  ) {
    this.acceptableCompletionSeconds = options.completionTimeoutPerGiB * dataSizeGB;
    this.lastProgressMs = startMs;
  }

  /** Whole seconds since the start, as KubeVirt counts them. */
  private elapsedSeconds(nowMs: number): number {
    return Math.floor((nowMs - this.startMs) / 1000);
  }

  private pastCompletionTime(nowMs: number): boolean {
    return this.acceptableCompletionSeconds !== 0 && this.elapsedSeconds(nowMs) > this.acceptableCompletionSeconds;
  }

  observe(s: JobSample): ConvergenceAction {
    if (s.running) {
      if (s.dataRemaining !== undefined) this.remaining = s.dataRemaining;
      if (this.watermark === 0 || this.remaining < this.watermark) this.lastProgressMs = s.nowMs;
      this.watermark = this.remaining;
    }
    if (this.mode === 'PostCopy') return { kind: 'none' };
    if (this.options.allowWorkloadDisruption && this.pastCompletionTime(s.nowMs) && this.mode !== 'Paused') {
      return this.options.allowPostCopy ? { kind: 'postcopy' } : { kind: 'pause' };
    }
    const stuckSeconds = Math.floor((s.nowMs - this.lastProgressMs) / 1000);
    if (this.options.progressTimeout !== 0 && stuckSeconds > this.options.progressTimeout) {
      return this.abortOnce('stuck', stuckSeconds);
    }
    if (this.pastCompletionTime(s.nowMs)) return this.abortOnce('timeout', this.acceptableCompletionSeconds);
    return { kind: 'none' };
  }

  /** The monitor switched to post-copy. */
  enteredPostCopy(): void {
    this.mode = 'PostCopy';
  }

  /** The monitor paused the guest: it now gets twice the time before the timeout aborts it. */
  paused(): void {
    this.mode = 'Paused';
    this.acceptableCompletionSeconds *= 2;
  }

  private abortOnce(reason: 'stuck' | 'timeout', seconds: number): ConvergenceAction {
    if (this.abortInProgress) return { kind: 'none' };
    return { kind: 'abort', reason, seconds };
  }
}
