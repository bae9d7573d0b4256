// A pod deleted while it starts: the SIGTERM reaches PID 1 before COMMAND exists. As PID 1 the
// kernel drops any signal the monitor has no handler for, so the monitor must catch it from its
// first line of code and hand it to COMMAND once COMMAND is spawned.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import {
  canUnsharePid,
  catchesSignal,
  childrenOf,
  killRunning,
  makeSandbox,
  parseLogs,
  runCli,
  startNoIstio,
  waitFor,
  type RunResult,
  type Sandbox,
} from './cli.testkit.js';

const unshareWorks = canUnsharePid();
const GUARD_MS = 8_000;
const SIGHUP = 1;
let box: Sandbox;
let istio: Awaited<ReturnType<typeof startNoIstio>>;

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
  killRunning();
  box.remove();
});

const trapLoop = (b: Sandbox): string =>
  `trap 'echo TERM > ${b.path('marker')}; exit 0' TERM; while :; do sleep 0.1; done`;

/** COMMAND got the SIGTERM: its trap ran, or (signalled before the trap existed) it died of it. */
function expectCommandTerminated(result: RunResult, b: Sandbox): void {
  expect(result.timedOut, 'the SIGTERM was lost: the pod ran until the guard killed it').toBe(false);
  const msgs = result.logs.map((l) => l.msg);
  if (result.code === 0) expect(b.read('marker').trim()).toBe('TERM');
  else {
    expect(result.code).toBe(255);
    expect(msgs).toContain('dirty virt-launcher shutdown: exit-code -1 (killed by SIGTERM)');
  }
}

/** The kernel's view of where a thread sleeps: "1 0x1 ..." is write(2) on fd 1. */
function blockedWritingStdout(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/syscall`, 'utf8').startsWith('1 0x1 ');
  } catch {
    return false;
  }
}

describe.skipIf(!unshareWorks)('a SIGTERM before COMMAND exists', () => {
  it('is held while the monitor is still starting (stuck on its first log line) and then ends the pod', async () => {
    // The monitor's stdout is a FIFO filled to the brim, so its first log line (a warning about the
    // bad verbosity, written before COMMAND is spawned) blocks it: a window of our choosing.
    const fifo = box.path('stdout');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    try {
      const filler = Buffer.alloc(4096, '\n');
      for (;;) {
        try {
          writeSync(reader, filler);
        } catch {
          break; // EAGAIN: the pipe is full
        }
      }
      const run = runCli({
        pid1: true,
        stdoutPath: fifo,
        command: ['sh', '-c', trapLoop(box)],
        env: { ...istio.env, VIRT_LAUNCHER_LOG_VERBOSITY: 'not-a-number' },
        guardMs: GUARD_MS,
      });
      const monitor = await run.monitorPid();
      await waitFor(() => (blockedWritingStdout(monitor) ? true : undefined), 'the monitor to block on stdout');
      expect(childrenOf(monitor)).toEqual([]);
      process.kill(monitor, 'SIGTERM');
      let output = '';
      const chunk = Buffer.alloc(65536);
      const drain = (): void => {
        for (;;) {
          let n: number;
          try {
            n = readSync(reader, chunk);
          } catch {
            return; // EAGAIN: nothing more for now
          }
          if (n <= 0) return;
          output += chunk.subarray(0, n).toString();
        }
      };
      const pump = setInterval(drain, 20);
      const result = await run.done;
      clearInterval(pump);
      drain();
      result.logs = parseLogs(output);
      expectCommandTerminated(result, box);
      const msgs = result.logs.map((l) => l.msg);
      expect(msgs[0]).toMatch(/^failed to set log verbosity/);
      expect(msgs).toContain('signalling virt-launcher to shut down');
    } finally {
      closeSync(reader);
    }
  });

  it('ends the pod every time when sent the moment the monitor can catch signals (20 runs)', async () => {
    for (let i = 0; i < 20; i++) {
      rmSync(box.path('marker'), { force: true });
      const run = runCli({ pid1: true, command: ['sh', '-c', trapLoop(box)], env: istio.env, guardMs: GUARD_MS });
      const monitor = await run.monitorPid();
      // SIGHUP is caught by the monitor's first statement (Node's start-up catches INT, TERM and
      // USR1 among others, but not HUP): from then on a SIGTERM must not be lost.
      await waitFor(() => (catchesSignal(monitor, SIGHUP) ? true : undefined), 'the monitor to catch signals', 5_000);
      process.kill(monitor, 'SIGTERM');
      expectCommandTerminated(await run.done, box);
    }
  });
});
