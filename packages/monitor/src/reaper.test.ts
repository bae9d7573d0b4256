// In-process reaper tests: the vitest worker becomes a child subreaper for the duration.
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, writeSync } from 'node:fs';
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

describe('draining a burst', () => {
  it('reaps 200 orphans that died together in one call, leaving no zombie', () => {
    becomeSubreaper();
    const box = makeSandbox();
    const fifo = box.path('lines');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    try {
      // The shell leaves 200 subshells blocked on the FIFO and exits: they become our orphans.
      // One line each then lets all of them exit 6 at about the same time.
      const mid = spawnSync('sh', ['-c', `exec 9<>${fifo}; for i in $(seq 200); do (read x <&9; exit 6) & done`], {
        stdio: 'ignore',
      });
      expect(mid.status).toBe(0);
      writeSync(fd, '\n'.repeat(200));
      blockUntil(() => zombieChildren().length === 200);
      const reaped = reapOrphans(new Set());
      expect(reaped).toHaveLength(200);
      expect(new Set(reaped.map((r) => r.exitCode))).toEqual(new Set([6]));
      expect(zombieChildren()).toEqual([]);
    } finally {
      closeSync(fd);
      box.remove();
    }
  });
});
