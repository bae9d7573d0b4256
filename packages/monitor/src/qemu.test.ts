import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { findQemuProcesses, stopQemuSurvivors } from './qemu.js';
import { makeSandbox, waitFor, type Sandbox } from './cli.testkit.js';

let box: Sandbox;
const started: ChildProcess[] = [];
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
  box.remove();
});

function fakeQemu(name: string, script: string): ChildProcess {
  const child = spawn(box.copyAs('/bin/dash', name), ['-c', script]);
  started.push(child);
  return child;
}

describe('findQemuProcesses', () => {
  it('finds a descendant named qemu-system-* or qemu-kvm, not a shell that merely mentions it', async () => {
    const qemu = fakeQemu('qemu-system-x86_64', 'sleep 30');
    const kvm = fakeQemu('qemu-kvm', 'sleep 30');
    const talker = spawn('sh', ['-c', 'sleep 30 # qemu-system-x86_64']);
    started.push(talker);
    const pids = await waitFor(() => {
      const found = findQemuProcesses().map((q) => q.pid);
      return found.length >= 2 ? found : undefined;
    }, 'the fake QEMUs');
    expect(pids.sort()).toEqual([qemu.pid, kvm.pid].sort());
  });

  it('ignores a QEMU that is not its descendant (another VM on the same host)', async () => {
    const qemu = fakeQemu('qemu-system-aarch64', 'sleep 30');
    const sibling = spawn('sleep', ['30']);
    started.push(sibling);
    await waitFor(() => (findQemuProcesses().length > 0 ? true : undefined), 'the fake QEMU');
    // Seen from the sibling's point of view, the QEMU belongs to someone else.
    expect(findQemuProcesses(sibling.pid).map((q) => q.pid)).toEqual([]);
    expect(findQemuProcesses(process.pid).map((q) => q.pid)).toEqual([qemu.pid]);
  });
});

describe('stopQemuSurvivors', () => {
  it("returns 'none' when there is no QEMU", async () => {
    expect(await stopQemuSurvivors({ timeoutSeconds: 1, find: () => [] })).toBe('none');
  });

  it("SIGTERMs a QEMU and returns 'stopped' once it is gone", async () => {
    const qemu = fakeQemu('qemu-system-x86_64', `trap 'exit 0' TERM; while :; do sleep 0.05; done`);
    await waitFor(() => (findQemuProcesses().length > 0 ? true : undefined), 'the fake QEMU');
    const exited = new Promise((resolve) => qemu.on('exit', (code, signal) => resolve(signal ?? code)));
    expect(await stopQemuSurvivors({ timeoutSeconds: 10 })).toBe('stopped');
    expect(await exited).toBe(0);
  });

  it("SIGKILLs a QEMU that ignores SIGTERM and returns 'killed'", async () => {
    const qemu = fakeQemu('qemu-system-x86_64', `trap '' TERM; while :; do sleep 0.05; done`);
    await waitFor(() => (findQemuProcesses().length > 0 ? true : undefined), 'the fake QEMU');
    const exited = new Promise((resolve) => qemu.on('exit', (_code, signal) => resolve(signal)));
    expect(await stopQemuSurvivors({ timeoutSeconds: 0.5 })).toBe('killed');
    expect(await exited).toBe('SIGKILL');
  });
});
