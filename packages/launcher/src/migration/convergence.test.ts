import { describe, expect, it } from 'vitest';
import { ConvergenceTracker, migrationDataSizeGB } from './convergence.js';

const base = { progressTimeout: 0, completionTimeoutPerGiB: 0, allowPostCopy: false, allowWorkloadDisruption: false };
const at = (s: number, dataRemaining?: number) => ({ nowMs: s * 1000, running: true, dataRemaining });

describe('ConvergenceTracker (KubeVirt legacy convergence)', () => {
  it('counts the data size in whole GB, rounded up (128 MiB of memory is 1)', () => {
    expect(migrationDataSizeGB(128 * 2 ** 20, 0)).toBe(1);
    expect(migrationDataSizeGB(2e9, 1)).toBe(3);
    expect(migrationDataSizeGB(0, 0)).toBe(0);
  });

  it('never acts without timeouts', () => {
    const t = new ConvergenceTracker(base, 1, 0);
    expect(t.observe(at(10_000, 5))).toEqual({ kind: 'none' });
  });

  it('aborts once past the completion time (per GiB × size), not before', () => {
    const t = new ConvergenceTracker({ ...base, completionTimeoutPerGiB: 3 }, 2, 0);
    expect(t.acceptableCompletionSeconds).toBe(6);
    expect(t.observe(at(6.9, 100))).toEqual({ kind: 'none' });
    expect(t.observe(at(7, 90))).toEqual({ kind: 'abort', reason: 'timeout', seconds: 6 });
    t.abortInProgress = true;
    expect(t.observe(at(8, 80))).toEqual({ kind: 'none' });
  });

  it('aborts a migration whose remaining data stops shrinking for longer than the progress timeout', () => {
    const t = new ConvergenceTracker({ ...base, progressTimeout: 2 }, 1, 0);
    expect(t.observe(at(1, 100))).toEqual({ kind: 'none' });
    expect(t.observe(at(2, 50))).toEqual({ kind: 'none' });
    expect(t.observe(at(4, 60))).toEqual({ kind: 'none' });
    expect(t.observe(at(5.1, 60))).toEqual({ kind: 'abort', reason: 'stuck', seconds: 3 });
  });

  it('progress resets the stuck clock', () => {
    const t = new ConvergenceTracker({ ...base, progressTimeout: 2 }, 1, 0);
    t.observe(at(1, 100));
    t.observe(at(3, 90));
    expect(t.observe(at(5, 80))).toEqual({ kind: 'none' });
  });

  it('with workload disruption allowed: post-copy when allowed, and nothing more once in post-copy', () => {
    const t = new ConvergenceTracker(
      { ...base, completionTimeoutPerGiB: 1, allowWorkloadDisruption: true, allowPostCopy: true },
      1,
      0,
    );
    expect(t.observe(at(2, 10))).toEqual({ kind: 'postcopy' });
    t.enteredPostCopy();
    expect(t.observe(at(100, 10))).toEqual({ kind: 'none' });
  });

  it('with workload disruption allowed but no post-copy: pause, then the doubled time before an abort', () => {
    const t = new ConvergenceTracker({ ...base, completionTimeoutPerGiB: 2, allowWorkloadDisruption: true }, 1, 0);
    expect(t.observe(at(3, 10))).toEqual({ kind: 'pause' });
    t.paused();
    expect(t.acceptableCompletionSeconds).toBe(4);
    expect(t.observe(at(4.5, 9))).toEqual({ kind: 'none' });
    expect(t.observe(at(5, 8))).toEqual({ kind: 'abort', reason: 'timeout', seconds: 4 });
  });
});
