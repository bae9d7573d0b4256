// The whole system on this machine: virt-pod runs examples/vmi-demo.yaml through monitor → launcher → libvirtd →
// QEMU/TCG; the guest gets its lease from our DHCP server, reaches the node through masquerade, serves port 80,
// and everything the runner made is gone afterwards. The hypervisor is chosen, not inherited: emulation, so the pod
// has no /dev/kvm and this passes on hosts without KVM, with a working KVM, or with a /dev/kvm that cannot run.
import { beforeAll, describe, expect, it } from 'vitest';
import { buildDemoGuest, demoArgs, leftovers, nothingLeft, runRootOf, snapshot, startPod } from './e2e-kit.js';

beforeAll(() => buildDemoGuest());

describe('virt-pod run examples/vmi-demo.yaml --until-lease --hypervisor emulation', () => {
  it('boots the guest, which gets 10.0.2.2 from our DHCP server and reaches the node through masquerade', async () => {
    const before = snapshot();
    const pod = startPod(demoArgs(['--hypervisor', 'emulation', '--until-lease', '--timeout', '180']));
    const status = await pod.exited;
    const out = pod.output();
    expect(status, out).toBe(0);
    expect(out).toMatch(/hypervisor: emulation as asked \(--hypervisor emulation\), no \/dev\/kvm/);
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 router=10\.0\.2\.1 /);
    expect(out).toMatch(/mtu=1450/);
    expect(out).toMatch(/search=default\.svc\.cluster\.local,svc\.cluster\.local,cluster\.local/);
    expect(out).toMatch(/node received "hello-from-guest" from 192\.0\.2\.10 /);
    expect(out).toMatch(/node → pod:80 reached the guest's web server: "hello from demo"/);
    expect(out).toMatch(/Domain defined\./);
    expect(out).toMatch(/Domain started\./);
    expect(out).toMatch(/pod exited with 0/);
    // Nothing the runner made is left: namespaces, /etc/netns entries, run-root, processes.
    expect(leftovers(before, runRootOf(out), out)).toEqual(nothingLeft);
  });
});
