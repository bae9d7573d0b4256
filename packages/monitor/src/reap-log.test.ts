import { describe, expect, it } from 'vitest';
import { createLogger } from './log.js';
import { ReapLog, reapedMessage } from './reap-log.js';

function setup(perWindow: number): { lines: string[]; clock: { t: number }; reapLog: ReapLog } {
  const lines: string[] = [];
  const clock = { t: 0 };
  const log = createLogger({ write: (line) => void lines.push(JSON.parse(line).msg as string) });
  return { lines, clock, reapLog: new ReapLog(log, { perWindow, windowMs: 1000, now: () => clock.t }) };
}

const orphan = (pid: number): { pid: number; status: number; exitCode: number; signal: null } => ({
  pid,
  status: 3 << 8,
  exitCode: 3,
  signal: null,
});

describe('ReapLog', () => {
  it('logs the first N orphans of a window one by one and the rest in one summary line', () => {
    const { lines, reapLog } = setup(3);
    for (let pid = 100; pid < 110; pid++) reapLog.record(orphan(pid));
    reapLog.flush();
    expect(lines).toEqual([
      'Reaped pid 100 with status 768 (exit code 3)',
      'Reaped pid 101 with status 768 (exit code 3)',
      'Reaped pid 102 with status 768 (exit code 3)',
      'Reaped 7 more orphans, not logged one by one (at most 3 lines per window)',
    ]);
  });

  it('starts a new budget in the next window, after summing up the previous one', () => {
    const { lines, clock, reapLog } = setup(1);
    reapLog.record(orphan(1));
    reapLog.record(orphan(2));
    clock.t = 1000;
    reapLog.record(orphan(3));
    reapLog.flush();
    expect(lines).toEqual([
      'Reaped pid 1 with status 768 (exit code 3)',
      'Reaped 1 more orphans, not logged one by one (at most 1 lines per window)',
      'Reaped pid 3 with status 768 (exit code 3)',
    ]);
  });

  it('writes nothing on flush when nothing was held back', () => {
    const { lines, reapLog } = setup(5);
    reapLog.record(orphan(1));
    reapLog.flush();
    expect(lines).toEqual(['Reaped pid 1 with status 768 (exit code 3)']);
  });

  it('names the signal of an orphan killed by one', () => {
    expect(reapedMessage({ pid: 9, status: 9, exitCode: null, signal: 9 })).toBe(
      'Reaped pid 9 with status 9 (signal 9)',
    );
  });
});
