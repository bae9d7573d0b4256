// A start that fails (QEMU cannot load the kernel it is given): virt-pod tears the pod down at once, as virt-handler
// would by deleting the domain, prints the reason once, and leaves nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildDemoGuest,
  demoArgs,
  guestDir,
  leftovers,
  nothingLeft,
  runRootOf,
  snapshot,
  startPod,
} from './e2e-kit.js';

let badKernelDir: string;

beforeAll(() => {
  buildDemoGuest();
  badKernelDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-badkernel-'));
  // Not a kernel: QEMU exits while libvirt starts it, so the domain is defined but never runs.
  fs.writeFileSync(path.join(badKernelDir, 'vmlinuz'), Buffer.alloc(64 * 1024, 0x5a));
  fs.copyFileSync(path.join(guestDir, 'initramfs.gz'), path.join(badKernelDir, 'initramfs.gz'));
});
afterAll(() => fs.rmSync(badKernelDir, { recursive: true, force: true }));

describe('virt-pod with a VMI whose start fails', () => {
  it('exits 1 with the reason once; the launcher hears the domain deleted instead of waiting for it', async () => {
    const before = snapshot();
    const pod = startPod(demoArgs(['--hypervisor', 'emulation', '--until-lease', '--keep'], badKernelDir));
    const status = await pod.exited;
    const out = pod.output();
    const runRoot = runRootOf(out);
    const podLog = fs.readFileSync(path.join(runRoot, 'pod.log'), 'utf8');
    fs.rmSync(runRoot, { recursive: true, force: true });

    expect(status, out).toBe(1);
    const failures = out.split('\n').filter((l) => l.startsWith('virt-pod: the VMI did not start: '));
    expect(failures, out).toHaveLength(1);
    const reason = failures[0]!.replace('virt-pod: the VMI did not start: ', '');
    expect(reason.length).toBeGreaterThan(10);
    expect(out.split(reason).length - 1, out).toBe(1);
    // The launcher got its final Deleted event (virt-pod deleted the domain) instead of timing out on it.
    expect(podLog).toContain('Final Delete notification sent');
    expect(podLog).not.toContain('Timed out waiting for final delete notification');
    expect(out).not.toMatch(/pod did not stop within/);
    expect(leftovers(before, runRoot)).toEqual(nothingLeft);
  });
});
