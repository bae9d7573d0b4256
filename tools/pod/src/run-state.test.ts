import { describe, expect, it } from 'vitest';
import { parseRunArgs } from './args.js';
import { InterruptedError } from './run-errors.js';
import { RunState } from './run-state.js';

function state(): { s: RunState; lines: string[] } {
  const lines: string[] = [];
  return { s: new RunState(parseRunArgs(['run', 'vmi.yaml']), '/repo', (l) => lines.push(l)), lines };
}

describe('RunState (what the phases of virt-pod run share)', () => {
  it('a phase runs, is timed and printed, and returns its value', async () => {
    const { s, lines } = state();
    expect(await s.phase('one', async () => 42)).toBe(42);
    expect(s.clock.records.map((r) => r.name)).toEqual(['one']);
    expect(lines[0]).toBe('▶ one');
    expect(lines[1]).toMatch(/^✔ one \(/);
  });

  it('after Ctrl-C no phase starts, and a running one ends with InterruptedError naming it', async () => {
    const { s, lines } = state();
    const never = new Promise<never>(() => undefined);
    const running = s.interruptible('waiting', never);
    s.onSignal();
    s.onSignal();
    await expect(running).rejects.toThrow(new InterruptedError('interrupted during waiting'));
    let ran = false;
    await expect(s.phase('later', async () => (ran = true))).rejects.toThrow('interrupted before later');
    expect(ran).toBe(false);
    expect(lines.filter((l) => l.startsWith('interrupted'))).toEqual(['interrupted: shutting the pod down']);
  });

  it('cleanup runs once, newest first, and reports a failing step without stopping', async () => {
    const { s, lines } = state();
    const order: string[] = [];
    s.cleanup.push('a', () => void order.push('a'));
    s.cleanup.push('b', () => {
      throw new Error('boom');
    });
    s.cleanup.push('c', () => void order.push('c'));
    await s.runCleanup();
    await s.runCleanup();
    expect(order).toEqual(['c', 'a']);
    expect(lines).toEqual(['cleanup of b failed: boom']);
  });
});
