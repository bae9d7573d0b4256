// The attack of a process that may signal PID 1 (same uid, e.g. a compromised QEMU): SIGUSR1
// makes a plain Node process open its inspector on 127.0.0.1:9229, through which anyone on the
// pod's loopback can run code inside it. The monitor must never open one. Each run gets its own
// pid and network namespace, so the port checks see only that pod's sockets.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import {
  canUnsharePid,
  catchesSignal,
  childrenOf,
  killRunning,
  listeningPorts,
  makeSandbox,
  runCli,
  waitFor,
  type Sandbox,
} from './cli.testkit.js';

const unshareWorks = canUnsharePid();
const GUARD_MS = 15_000;
const INSPECTOR_PORT = 9229;
const SIGUSR1 = 10;
let box: Sandbox;

beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => {
  killRunning();
  box.remove();
});

const readyLoop = (b: Sandbox): string =>
  `echo "$NODE_OPTIONS" > ${b.path('node-options')}; touch ${b.path('ready')}; while :; do sleep 0.1; done`;

describe.skipIf(!unshareWorks)('no inspector in the pod', () => {
  it('the probe sees an inspector: a plain node as PID 1 opens port 9229 on SIGUSR1', async () => {
    // The control: without it, "nothing listens" below could mean the probe looks in the wrong place.
    const proc = spawn('unshare', [
      '--pid',
      '--fork',
      '--mount-proc',
      '--net',
      'sh',
      '-c',
      'ip link set lo up && exec node -e "setInterval(() => {}, 1000)"',
    ]);
    try {
      const pid = await waitFor(() => childrenOf(proc.pid as number)[0], 'node under unshare');
      await waitFor(() => (catchesSignal(pid, SIGUSR1) ? true : undefined), 'node to catch SIGUSR1');
      process.kill(pid, 'SIGUSR1');
      const ports = await waitFor(() => {
        const open = listeningPorts(pid);
        return open.includes(INSPECTOR_PORT) ? open : undefined;
      }, 'the inspector port');
      expect(ports).toContain(INSPECTOR_PORT);
    } finally {
      proc.kill('SIGKILL');
      for (const pid of childrenOf(proc.pid as number)) process.kill(pid, 'SIGKILL');
    }
  });

  it('SIGUSR1 to the monitor (PID 1) opens no port, is logged, and the pod goes on', async () => {
    const run = runCli({ pid1: true, privateNet: true, command: ['sh', '-c', readyLoop(box)], guardMs: GUARD_MS });
    const monitor = await run.monitorPid();
    await waitFor(() => (box.exists('ready') ? true : undefined), 'the command to be ready');
    for (let i = 0; i < 3; i++) process.kill(monitor, 'SIGUSR1');
    // The line proves the monitor's own listener took the signal (Node's default would open the port instead).
    await waitFor(
      () => (run.logsSoFar().some((l) => l.msg.startsWith('ignored SIGUSR1')) ? true : undefined),
      'the monitor to log the SIGUSR1',
    );
    expect(listeningPorts(monitor)).toEqual([]);
    // Still alive and in charge: the command was not signalled, and SIGTERM still ends the pod.
    expect(childrenOf(monitor)).toHaveLength(1);
    process.kill(monitor, 'SIGTERM');
    const result = await run.done;
    expect(result.timedOut).toBe(false);
    expect(result.logs.map((l) => l.msg)).toContain('signalling virt-launcher to shut down');
    expect(result.stderr).not.toMatch(/Debugger listening/);
  });

  it('NODE_OPTIONS=--inspect: nothing listens in the pod and COMMAND does not inherit the option', async () => {
    const run = runCli({
      pid1: true,
      privateNet: true,
      command: ['sh', '-c', readyLoop(box)],
      env: { ...process.env, NODE_OPTIONS: `--inspect=127.0.0.1:${INSPECTOR_PORT} --max-old-space-size=64` },
      guardMs: GUARD_MS,
    });
    const monitor = await run.monitorPid();
    await waitFor(() => (box.exists('ready') ? true : undefined), 'the command to be ready');
    // Neither the monitor nor COMMAND may listen.
    expect(listeningPorts(monitor)).toEqual([]);
    expect(box.read('node-options').trim()).toBe('--max-old-space-size=64');
    process.kill(monitor, 'SIGTERM');
    const result = await run.done;
    expect(result.timedOut).toBe(false);
    const msgs = result.logs.map((l) => l.msg);
    // The monitor is native (no JavaScript engine reads NODE_OPTIONS there): it has no inspector to close.
    expect(msgs.some((m) => m.startsWith('closed the inspector'))).toBe(false);
    expect(msgs).toContain(`removed --inspect=127.0.0.1:${INSPECTOR_PORT} from NODE_OPTIONS`);
  });
});
