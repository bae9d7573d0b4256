// A burst of 2,000 short-lived orphans under the monitor as PID 1: every one is reaped (no zombie
// is left), each is accounted for in the log, and the log stays a handful of lines instead of
// one line per orphan. (How fast and at what CPU cost, next to tini: tools/bench/suites/monitor.ts.)
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { DEFAULT_REAP_LINES_PER_WINDOW, DEFAULT_REAP_LOG_WINDOW_MS } from './reap-log.js';
import { canUnsharePid, makeSandbox, reapedCount, runCli, startNoIstio, type Sandbox } from './cli.testkit.js';

const unshareWorks = canUnsharePid();
const hasPython = spawnSync('python3', ['--version']).status === 0;
const ORPHANS = 2000;

// COMMAND: a middle shell starts N subshells that block reading a pipe, and exits without
// waiting for them, so they all belong to PID 1. Closing the pipe's write end then makes all of
// them exit 7 at once: the burst. COMMAND waits (bounded) until no process but PID 1 and itself
// is left, and reports how many zombies and other processes remain.
const BURST_PY = String.raw`
import os, sys, time
n = int(sys.argv[1]); out = sys.argv[2]
r, w = os.pipe()
mid = os.fork()
if mid == 0:
    os.dup2(r, 9); os.close(r); os.close(w)
    # An explicit redirection: a background list's stdin would be /dev/null otherwise.
    os.execv('/bin/sh', ['sh', '-c', 'i=0; while [ $i -lt %d ]; do (read x; exit 7) <&9 & i=$((i+1)); done' % n])
os.close(r)
os.waitpid(mid, 0)
os.close(w)
me = os.getpid()
def others():
    zombies, alive = 0, 0
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) in (1, me): continue
        try:
            with open('/proc/%s/stat' % name) as f: s = f.read()
        except OSError: continue
        if s[s.rindex(')') + 2] == 'Z': zombies += 1
        else: alive += 1
    return zombies, alive
deadline = time.monotonic() + 120
while True:
    zombies, alive = others()
    if (zombies == 0 and alive == 0) or time.monotonic() > deadline: break
    time.sleep(0.02)
open(out, 'w').write('%d %d' % (zombies, alive))
`;

let istio: Awaited<ReturnType<typeof startNoIstio>>;
let box: Sandbox;
beforeAll(async () => {
  istio = await startNoIstio();
});
afterAll(async () => {
  await istio.close();
});
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => {
  box.remove();
});

describe.skipIf(!unshareWorks || !hasPython)('a burst of short-lived orphans under the monitor as PID 1', () => {
  it(
    `reaps ${ORPHANS} of them, leaves no zombie, and logs a summary instead of a line each`,
    { timeout: 180_000 },
    async () => {
      writeFileSync(box.path('burst.py'), BURST_PY);
      const result = await runCli({
        pid1: true,
        command: ['python3', box.path('burst.py'), String(ORPHANS), box.path('report')],
        env: istio.env,
        guardMs: 170_000,
      }).done;
      expect(result.timedOut).toBe(false);
      expect(result.code, result.stderr).toBe(0);
      expect(box.read('report')).toBe('0 0');
      const count = reapedCount(result.logs);
      expect(count.total).toBe(ORPHANS);
      expect(count.summarized).toBeGreaterThan(0);
      expect(count.lines).toBeLessThan(ORPHANS / 10);
      // The monitor's windows are back to back, so any span of one window's length (read on the
      // log's own clock) overlaps at most two of them.
      const times = result.logs.filter((l) => l.msg.startsWith('Reaped pid ')).map((l) => Date.parse(l.timestamp));
      for (const t of times) {
        expect(times.filter((u) => u >= t && u < t + DEFAULT_REAP_LOG_WINDOW_MS).length).toBeLessThanOrEqual(
          2 * DEFAULT_REAP_LINES_PER_WINDOW,
        );
      }
      const statuses = result.logs.map((l) => /^Reaped pid \d+ with status (\d+)/.exec(l.msg)?.[1]).filter(Boolean);
      expect(new Set(statuses)).toEqual(new Set([String(7 << 8)]));
    },
  );
});
