// Handler conformance: each VMI runs through virt-pod, which plays a stock KubeVirt v1.9 virt-handler and
// kubelet only, and must reach Running, give the guest its lease, answer on a forwarded port and power off to
// Succeeded. What the pod gets is what a stock handler gives it, step by step:
// - network phase 1 as pkg/network/setup/netpod does it (masquerade: pkg/network/setup/netpod/masquerade, bridge
//   and k6t-eth0, tap, nftables NAT; no file for the launcher); phase 2, the guest's DHCP configuration, is the
//   launcher's (pkg/network/dhcp/masquerade.go);
// - the cmd client calls of pkg/virt-handler/cmd-client (Info, SyncVirtualMachine, Shutdown, Delete) and the notify
//   server of pkg/virt-handler/notify-server, which turns a Shutoff/Shutdown domain into phase Succeeded;
// - the pod's addresses are the CNI's (--pod-ip-family), its resolv.conf kubelet's.
// The hypervisor is chosen (emulation: no /dev/kvm in the pod), so this passes with or without a usable KVM.
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVmi, type VirtualMachineInstance } from '@virt-launcher/converter';
import {
  buildDemoGuest,
  demoArgs,
  interruptLikeTerminal,
  leftovers,
  nothingLeft,
  repo,
  runRootOf,
  snapshot,
  startPod,
  type PodRun,
} from './e2e-kit.js';
import { NO_IPAM_ANNOTATION } from './pod-networks.js';

let work = '';
beforeAll(async () => {
  buildDemoGuest();
  work = await mkdtemp(join(tmpdir(), 'vlt-pod-conformance-'));
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** examples/vmi-demo.yaml, changed by `edit`, written as the VMI file of one scenario. */
async function vmiFile(name: string, edit: (vmi: VirtualMachineInstance) => void): Promise<string> {
  const vmi = parseVmi(readFileSync(join(repo, 'examples/vmi-demo.yaml'), 'utf8'));
  vmi.metadata.name = name;
  edit(vmi);
  const file = join(work, `${name}.json`);
  await writeFile(file, JSON.stringify(vmi));
  return file;
}

const addKernelArgs = (vmi: VirtualMachineInstance, args: string) => {
  const kb = vmi.spec!.domain!.firmware!.kernelBoot!;
  kb.kernelArgs = `${kb.kernelArgs ?? ''} ${args}`.trim();
};

/**
 * Runs the VMI until the guest's lease, then shuts the pod down as kubelet and virt-handler do. With `during`, the
 * pod runs on until `during` has done its part while the guest runs, and is then stopped with Ctrl-C.
 */
async function runToSucceeded(
  file: string,
  extra: string[] = [],
  during?: (pod: PodRun) => Promise<void>,
): Promise<string> {
  const before = snapshot();
  const untilLease = during ? [] : ['--until-lease'];
  const args = demoArgs(['--hypervisor', 'emulation', ...untilLease, '--timeout', '240', ...extra]);
  args[2] = file;
  const pod = startPod(args);
  if (during) {
    await pod.waitFor(/the guest is running: Ctrl-C shuts the pod down/);
    await during(pod);
    interruptLikeTerminal(pod);
  }
  const status = await pod.exited;
  const out = pod.output();
  expect(status, out).toBe(0);
  expect(out).toMatch(/Domain started\./);
  expect(out).toMatch(/domain event MODIFIED: Running/);
  // pkg/virt-handler/vm.go: a domain shut off with reason Shutdown ends the VMI Succeeded.
  expect(out).toMatch(/domain event MODIFIED: Shutoff \(Shutdown\)/);
  expect(out).toMatch(/VMI phase: Succeeded/);
  expect(out).toMatch(/pod exited with 0/);
  expect(leftovers(before, runRootOf(out), out)).toEqual(nothingLeft);
  return out;
}

describe('a stock virt-handler drives the launcher (masquerade)', () => {
  it('IPv4: the default VMI gets 10.0.2.2 from the launcher, reaches the node and serves port 80', async () => {
    const out = await runToSucceeded(await vmiFile('conf-v4', () => undefined));
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 router=10\.0\.2\.1 dns=192\.0\.2\.1 mtu=1450 /);
    expect(out).toMatch(/node received "hello-from-guest" from 192\.0\.2\.10 /);
    expect(out).toMatch(/node → pod:80 reached the guest's web server: "hello from demo"/);
  }, 400_000);

  it('a custom vmNetworkCIDR and dhcpOptions: the guest gets 10.11.12.2 and the options', async () => {
    const file = await vmiFile('conf-cidr', (vmi) => {
      vmi.spec!.networks![0]!.pod = { vmNetworkCIDR: '10.11.12.0/24' };
      // The converter's type leaves dhcpOptions out (it is only the DHCP server's); the VMI carries it all the same.
      Object.assign(vmi.spec!.domain!.devices!.interfaces![0]!, {
        dhcpOptions: { bootFileName: 'vlt.ipxe', ntpServers: ['10.11.12.1'] },
      });
    });
    const out = await runToSucceeded(file, ['--console']);
    expect(out).toMatch(/guest lease: ip=10\.11\.12\.2 router=10\.11\.12\.1 /);
    expect(out).toMatch(/VLT-GUEST: dhcp-options [^\n]*ntpsrv=10\.11\.12\.1/);
    expect(out).toMatch(/node → pod:80 reached the guest's web server/);
  }, 400_000);

  it('IPv6 only: the guest gets fd10:0:2::2 by DHCPv6 and is reached through the pod IPv6 address', async () => {
    // KubeVirt's launcher sends no router advertisements: the guest's own configuration names its gateway.
    const file = await vmiFile('conf-v6', (vmi) => addKernelArgs(vmi, 'vlt.gw6=fd10:0:2::1'));
    const out = await runToSucceeded(file, ['--pod-ip-family', 'ipv6']);
    expect(out).toMatch(/guest lease: ip=fd10:0:2::2 dns=2001:db8:10::1 router=fd10:0:2::1/);
    expect(out).toMatch(/node received "hello-from-guest-v6" from 2001:db8:10::a /);
    expect(out).toMatch(/node → \[2001:db8:10::a\]:80 reached the guest's web server: "hello from demo"/);
  }, 400_000);

  it('dual stack: a DHCPv4 lease and a DHCPv6 address, both families NATed each way', async () => {
    const file = await vmiFile('conf-dual', (vmi) => addKernelArgs(vmi, 'vlt.gw6=fd10:0:2::1'));
    const out = await runToSucceeded(file, ['--pod-ip-family', 'dual']);
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 router=10\.0\.2\.1 /);
    expect(out).toMatch(/guest ipv6 lease: ip=fd10:0:2::2 /);
    expect(out).toMatch(/node received "hello-from-guest" from 192\.0\.2\.10 /);
    expect(out).toMatch(/node received "hello-from-guest-v6" from 2001:db8:10::a /);
    expect(out).toMatch(/node → pod:80 reached the guest's web server/);
    expect(out).toMatch(/node → \[2001:db8:10::a\]:80 reached the guest's web server/);
  }, 400_000);
});

describe('a stock virt-handler drives the launcher (hotplug)', () => {
  it('a disk hot-plugged into the running guest reaches the handler as a domain event, not at its resync', async () => {
    // pkg/virt-launcher/notify-client/client.go: a device-added callback sends the domain at once; virt-handler's
    // periodic resync is 5 minutes away, and the guest is stopped as soon as the event has been seen.
    const hp = join(work, 'hp.img');
    await writeFile(hp, Buffer.alloc(0));
    await truncate(hp, 8 * 1024 * 1024);
    const file = await vmiFile('conf-hotplug', () => undefined);
    const out = await runToSucceeded(file, ['--console', '--watch', '--volume', `hp=${hp}`], async (pod) => {
      expect(pod.output()).toMatch(/handler sees disks: vda,vdb\n/);
      const vmi = JSON.parse(readFileSync(file, 'utf8')) as VirtualMachineInstance;
      vmi.spec!.domain!.devices!.disks!.push({ name: 'hp', disk: { bus: 'virtio' } });
      vmi.spec!.volumes!.push({ name: 'hp', persistentVolumeClaim: { claimName: 'hp-claim', hotpluggable: true } });
      await writeFile(file, JSON.stringify(vmi));
      await pod.waitFor(/handler sees disks: vda,vdb,vdc/);
      await pod.waitFor(/VLT-GUEST: disk vdc added 8388608/);
    });
    expect(out).toMatch(/watch: SyncVirtualMachine ok/);
  }, 400_000);
});

describe('a stock virt-handler drives the launcher (bridge)', () => {
  it("pod network: the guest holds the pod's own address and MAC, leased from virt-handler's vif-cache", async () => {
    const file = await vmiFile('conf-bridge', (vmi) => {
      // KubeVirt's admission allows port forwarding only with masquerade: a bridge NIC names no ports.
      vmi.spec!.domain!.devices!.interfaces = [{ name: 'default', bridge: {} }];
    });
    const out = await runToSucceeded(file);
    expect(out).toMatch(/default: eth0-nic \+ tap0 on k6t-eth0, guest 192\.0\.2\.10\/24 \(\S+\) by DHCP/);
    expect(out).toMatch(/guest lease: ip=192\.0\.2\.10 router=192\.0\.2\.1 dns=192\.0\.2\.1 mtu=1450 /);
    expect(out).toMatch(/node received "hello-from-guest" from 192\.0\.2\.10 /);
    expect(out).toMatch(/node → pod:80 reached the guest's web server: "hello from demo"/);
  }, 400_000);

  it('Multus networks: a lease on the one with IPAM, only a link on the one without', async () => {
    const file = await vmiFile('conf-multus', (vmi) => {
      vmi.metadata.annotations = { ...vmi.metadata.annotations, [NO_IPAM_ANNOTATION]: 'green' };
      vmi.spec!.domain!.devices!.interfaces!.push({ name: 'blue', bridge: {} }, { name: 'green', bridge: {} });
      vmi.spec!.networks!.push(
        { name: 'blue', multus: { networkName: 'blue-net' } },
        { name: 'green', multus: { networkName: 'green-net' } },
      );
    });
    // The guest's DHCP client gives up on the NIC without a server only after its tries: wait for that line.
    const out = await runToSucceeded(file, ['--console'], (pod) => pod.waitFor(/VLT-GUEST: nolease eth2/));
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 /);
    expect(out).toMatch(/blue: \S+-nic \+ \S+ on k6t-\S+, guest 198\.18\.1\.10\/24 \(\S+\) by DHCP/);
    expect(out).toMatch(/green: \S+-nic \+ \S+ on k6t-\S+, no IPAM: link only/);
    expect(out).toMatch(/VLT-GUEST: lease eth1 198\.18\.1\.10\/24/);
    expect(out).toMatch(/VLT-GUEST: nolease eth2/);
  }, 400_000);
});

describe('a stock virt-handler drives the launcher (image volumes)', () => {
  // KubeVirt v1.9's ImageVolume gate (beta, on by default): no containerDisk or kernel-boot init containers; kubelet
  // mounts each image read-only at /var/run/kubevirt-image-volume/disk_<index> and /var/run/kubevirt-kernel-boot
  // (pkg/virt-controller/services/rendervolumes.go withImageVolumes), the launcher gets --image-volume
  // (template.go), virt-handler bind-mounts nothing (pkg/virt-handler/container-disk/mount.go MountAndVerify) and
  // the launcher links the files itself (pkg/virt-launcher/virtwrap/manager.go linkImageVolumeFilePaths).
  it('image volume: the containerDisk and the kernel boot come from read-only image volumes; the VMI reaches Succeeded', async () => {
    // A short name: the serial console's socket path in the run-root has to stay within a socket path's 108 bytes.
    const out = await runToSucceeded(await vmiFile('conf-imgvol', () => undefined), ['--image-volumes']);
    expect(out).toMatch(/rootdisk → image volume \/var\/run\/kubevirt-image-volume\/disk_0 \(read-only\)/);
    expect(out).toMatch(/kernel-boot-volume → image volume \/var\/run\/kubevirt-kernel-boot \(read-only\)/);
    // Nothing was put in the container-disk dir for the launcher: it found the disk and the kernel in the mounts.
    expect(out).not.toMatch(/→ disk_0\.img|kernel-boot\/vmlinuz/);
    expect(out).toMatch(/guest lease: ip=10\.0\.2\.2 /);
  }, 400_000);
});
