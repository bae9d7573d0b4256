// In-process reaper tests: the vitest worker becomes a child subreaper for the duration.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { becomeSubreaper, isSubreaper, reapOrphans, reapPid, zombieChildren } from './reaper.js';
import { makeSandbox } from './cli.testkit.js';

/** Blocks the event loop: libuv cannot reap our own child while we look at the zombies. */
function blockUntil(probe: () => boolean, timeoutMs = 10_000): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    Atomics.wait(cell, 0, 0, 10);
  }
}

describe('reaper primitives', () => {
  it('becomes a child subreaper', () => {
    becomeSubreaper();
    expect(isSubreaper()).toBe(true);
  });

  it('reaps an adopted orphan but leaves our own child to libuv, whose exit event still fires', async () => {
    becomeSubreaper();
    const box = makeSandbox();
    try {
      const child = spawn('sh', ['-c', `( sh -c 'exit 5' & echo $! > ${box.path('orphan')} ); exit 4`]);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const own = child.pid as number;
      let orphan = 0;
      blockUntil(() => {
        orphan = Number(readFileSync(box.path('orphan'), { encoding: 'utf8', flag: 'a+' }).trim()) || 0;
        const zombies = zombieChildren();
        return orphan > 0 && zombies.includes(orphan) && zombies.includes(own);
      });
      const reaped = reapOrphans(new Set([own]));
      expect(reaped).toEqual([{ pid: orphan, status: 5 << 8, exitCode: 5, signal: null }]);
      expect(zombieChildren()).toEqual([own]);
      expect(await exited).toBe(4);
    } finally {
      box.remove();
    }
  });

  it('returns null for a pid that is not our child', () => {
    expect(reapPid(1)).toBeNull();
    expect(() => reapPid(0)).toThrow();
  });
});
