// Ctrl-C on virt-pod, as a terminal sends it: SIGINT to virt-pod's whole process group. The pod's processes are
// not in that group, so the daemons live on while virt-pod stops the pod as kubelet would; at any phase the pod is
// gone within seconds and nothing is left.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildDemoGuest,
  demoArgs,
  interruptLikeTerminal,
  leftovers,
  nothingLeft,
  runRootOf,
  snapshot,
  startPod,
} from './e2e-kit.js';

beforeAll(() => buildDemoGuest());

describe('Ctrl-C on virt-pod', () => {
  it('before the launcher is ready: stops, exits 130, starts no guest and leaves nothing', async () => {
    const before = snapshot();
    const pod = startPod(demoArgs(['--hypervisor', 'emulation', '--timeout', '240']));
    // The first line of the pod's own output: monitor and launcher are starting, the launcher is not ready yet.
    await pod.waitFor(/\[pod\] /);
    const readyAlready = /launcher ready/.test(pod.output());
    interruptLikeTerminal(pod);
    const status = await pod.exited;
    const out = pod.output();
    expect(readyAlready, out).toBe(false);
    expect(status, out).toBe(130);
    expect(out).toMatch(/interrupted: shutting the pod down/);
    expect(out).toMatch(/virt-pod: interrupted .*; the pod was removed/);
    expect(out).not.toMatch(/Domain started\./);
    expect(leftovers(before, runRootOf(out))).toEqual(nothingLeft);
  });

  it('while the guest runs: the daemons survive the SIGINT and the guest powers off through ACPI', async () => {
    const before = snapshot();
    const pod = startPod(demoArgs(['--hypervisor', 'emulation', '--timeout', '240']));
    await pod.waitFor(/the guest is running: Ctrl-C shuts the pod down/);
    interruptLikeTerminal(pod);
    const status = await pod.exited;
    const out = pod.output();
    expect(status, out).toBe(0);
    expect(out).toMatch(/ShutdownVirtualMachine: ok/);
    expect(out).toMatch(/domain event MODIFIED: Shutoff \(Shutdown\)/);
    expect(out).not.toMatch(/(libvirtd|virtlogd) exited, restarting/);
    expect(out).not.toMatch(/is not valid JSON|Grace Period expired/);
    expect(out).toMatch(/pod exited with 0/);
    expect(leftovers(before, runRootOf(out))).toEqual(nothingLeft);
  });
});
