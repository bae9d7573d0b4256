// --hypervisor on a host whose /dev/kvm cannot run a vCPU, made reproducible on any machine: the test-only
// VIRT_POD_TEST_KVM_DEVICE=broken puts a character device that is not KVM where the host's /dev/kvm would be, for
// the probe and the pod alike.
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_KVM_DEVICE_ENV } from './hypervisor.js';
import { buildDemoGuest, demoArgs, leftovers, nothingLeft, runRootOf, snapshot, startPod } from './e2e-kit.js';

const broken = { [TEST_KVM_DEVICE_ENV]: 'broken' };

beforeAll(() => buildDemoGuest());

describe('virt-pod --hypervisor with a /dev/kvm that is present but unusable', () => {
  it('auto: the probe finds KVM unusable, says so in one line, and the guest still gets its lease (emulation)', async () => {
    const before = snapshot();
    const pod = startPod(demoArgs(['--until-lease', '--timeout', '180']), broken);
    const status = await pod.exited;
    const out = pod.output();
    expect(status, out).toBe(0);
    const lines = out.split('\n').filter((l) => l.startsWith('KVM present but unusable ('));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^KVM present but unusable \(.*kvm.*\): using emulation$/i);
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 /);
    expect(leftovers(before, runRootOf(out), out)).toEqual(nothingLeft);
  });

  it('kvm: fails before making the pod, exit 1 with the reason, nothing left behind', async () => {
    const before = snapshot();
    const pod = startPod(demoArgs(['--hypervisor', 'kvm', '--until-lease']), broken);
    const status = await pod.exited;
    const out = pod.output();
    expect(status, out).toBe(1);
    expect(out).toMatch(/virt-pod: --hypervisor kvm: KVM present but unusable \(.*kvm.*\)\n/i);
    expect(out).not.toMatch(/pod network/);
    expect(leftovers(before, runRootOf(out), out)).toEqual(nothingLeft);
  });
});
