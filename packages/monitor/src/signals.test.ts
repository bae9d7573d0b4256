// The signal gate in this process (the vitest worker): signals sent to ourselves before a child
// exists are held, then the child gets SIGTERM; SIGUSR1 opens no inspector.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import inspector from 'node:inspector';
import { createLogger } from './log.js';
import { SignalGate } from './signals.js';
import { makeSandbox, waitFor } from './cli.testkit.js';

const gates: SignalGate[] = [];
afterEach(() => {
  for (const gate of gates.splice(0)) gate.close();
});

function collectingLogger(): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, log: createLogger({ write: (line) => void lines.push(JSON.parse(line).msg as string) }) };
}

describe('SignalGate', () => {
  it('holds SIGHUP and SIGTERM that arrive before the child exists, then sends the child one SIGTERM', async () => {
    const gate = new SignalGate();
    gates.push(gate);
    process.kill(process.pid, 'SIGHUP');
    process.kill(process.pid, 'SIGTERM');
    await waitFor(() => (gate.pending.length === 2 ? true : undefined), 'both signals to be held');
    expect(gate.pending).toEqual(['SIGHUP', 'SIGTERM']);
    const box = makeSandbox();
    try {
      const ready = box.path('ready');
      const child = spawn('sh', ['-c', `trap 'echo TERM; exit 0' TERM; touch ${ready}; while :; do sleep 0.1; done`]);
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      // Once the trap is set, so that the shell's own reaction is what we observe.
      await waitFor(() => (box.exists('ready') ? true : undefined), 'the child to trap SIGTERM');
      const { lines, log } = collectingLogger();
      gate.attach(child, log);
      const code = await new Promise((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      expect(out.trim()).toBe('TERM');
      expect(gate.pending).toEqual([]);
      expect(lines).toEqual([
        'received SIGHUP, SIGTERM before virt-launcher started: delivering it now',
        'signalling virt-launcher to shut down',
      ]);
    } finally {
      box.remove();
    }
  });

  it('catches SIGUSR1: logged, no inspector opened, the process lives on', async () => {
    const gate = new SignalGate();
    gates.push(gate);
    const { lines, log } = collectingLogger();
    gate.setLogger(log);
    process.kill(process.pid, 'SIGUSR1');
    await waitFor(() => (lines.length > 0 ? true : undefined), 'the SIGUSR1 to be logged');
    // One handler per signal: the listener that logged replaced Node's, which would have opened it.
    expect(inspector.url()).toBeUndefined();
    expect(lines).toEqual(['ignored SIGUSR1: this process opens no debugger on a signal']);
  });
});
