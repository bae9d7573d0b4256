// `virt-pod run --watch --volume NAME=FILE`: while the guest runs (QEMU TCG: --hypervisor emulation, chosen on
// purpose), an edit of the VMI file that adds a hotpluggable PVC volume is applied as virt-handler would: the
// file lands at the pod's hotplug path, the launcher attaches it, and the guest reports the new disk. The run
// prints the launcher's socket once it is ready; an edit the launcher refuses (the pod NIC marked absent) is reported
// and leaves the guest as it was; Ctrl-C then leaves no process or run-root behind.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseVmi } from '@virt-launcher/converter';
import {
  buildDemoGuest,
  demoArgs,
  interruptLikeTerminal,
  leftovers,
  repo,
  runRootOf,
  snapshot,
  startPod,
} from './e2e-kit.js';

beforeAll(() => buildDemoGuest());

/** The demo VMI as a file in `dir`, and the 8 MiB file behind the hotpluggable PVC `hp`. */
function watchedVmi(dir: string) {
  const vmi = parseVmi(fs.readFileSync(path.join(repo, 'examples/vmi-demo.yaml'), 'utf8'));
  const vmiFile = path.join(dir, 'vmi.json');
  fs.writeFileSync(vmiFile, JSON.stringify(vmi));
  const disk = path.join(dir, 'hp.img');
  fs.writeFileSync(disk, '');
  fs.truncateSync(disk, 8 * 1024 * 1024);
  return { vmi, vmiFile, disk };
}

/** virt-pod on that file with --watch, the PVC's file given as `hp`, under emulation (no /dev/kvm in the pod). */
function startWatchingPod(vmiFile: string, disk: string) {
  const args = demoArgs(['--hypervisor', 'emulation', '--console', '--watch', '--volume', `hp=${disk}`]);
  args[2] = vmiFile;
  return startPod(args);
}

/** The edit a user makes: the PVC `hp` as a hotpluggable volume with its virtio disk. */
function addHotplugDisk(vmi: ReturnType<typeof parseVmi>, vmiFile: string): void {
  const devices = vmi.spec!.domain.devices;
  devices.disks = [...(devices.disks ?? []), { name: 'hp', disk: { bus: 'virtio' } }];
  vmi.spec!.volumes = [
    ...(vmi.spec!.volumes ?? []),
    { name: 'hp', persistentVolumeClaim: { claimName: 'hp-claim', hotpluggable: true } },
  ];
  fs.writeFileSync(vmiFile, JSON.stringify(vmi));
}

describe('virt-pod run --watch', () => {
  it('a hotpluggable volume added to the VMI file is attached to the running guest; an unplugged pod NIC is refused', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-watch-'));
    try {
      const { vmi, vmiFile, disk } = watchedVmi(dir);
      const before = snapshot();
      const pod = startWatchingPod(vmiFile, disk);
      await pod.waitFor(/watch: applying changes of /);
      const socket = /launcher socket: (\S+)/.exec(pod.output())?.[1] ?? '';
      expect(path.isAbsolute(socket), pod.output()).toBe(true);
      expect(fs.statSync(socket).isSocket()).toBe(true);

      addHotplugDisk(vmi, vmiFile);
      await pod.waitFor(/VLT-GUEST: disk vd[a-z] added \d+/);
      const out = pod.output();
      expect(out).toMatch(/watch: SyncVirtualMachine ok/);
      expect(out).toMatch(/VLT-GUEST: disk vd[a-z] added 8388608/);
      expect(fs.existsSync(path.join(runRootOf(out), 'run/kubevirt/hotplug-disks/hp.img'))).toBe(true);

      // Issue 36 item 4: no API server admits the file, so the launcher's Sync validation does. Marking the pod
      // network's NIC absent (KubeVirt's admission refuses it: pkg/network/admitter/admit.go) is refused with a
      // line naming the field, and the guest keeps its NIC; it used to be unplugged, with no network left.
      const plugged = structuredClone(vmi);
      const nic = vmi.spec!.domain.devices.interfaces![0]!;
      nic.state = 'absent';
      fs.writeFileSync(vmiFile, JSON.stringify(vmi));
      await pod.waitFor(
        /watch: edit refused, the guest keeps its previous spec: SyncVirtualMachine failed: spec\.domain\.devices\.interfaces\[0\]\.state: "absent" [^\n]*cannot unplug "default"/,
      );
      // A change the guest reports after the refused one: had the NIC gone, its removal would show before this.
      plugged.spec!.domain.devices.disks = plugged.spec!.domain.devices.disks!.filter((d) => d.name !== 'hp');
      plugged.spec!.volumes = plugged.spec!.volumes!.filter((v) => v.name !== 'hp');
      fs.writeFileSync(vmiFile, JSON.stringify(plugged));
      await pod.waitFor(/VLT-GUEST: disk vd[a-z] removed/);
      expect(pod.output()).not.toMatch(/VLT-GUEST: nic \S+ removed/);

      interruptLikeTerminal(pod);
      await pod.exited;
      // Only this run's own leftovers: other suites may run pods (with their namespaces) at the same time; the
      // namespaces of an interrupted run are covered by interrupt.e2e.test.ts.
      const left = leftovers(before, runRootOf(pod.output()));
      expect({ runRoot: left.runRoot, processes: left.processes }).toEqual({ runRoot: [], processes: [] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);

  it('an edit written while the guest still boots is applied once the watch starts', async () => {
    // The gap between the first read of the file and the watch's start (boot, lease, masquerade checks) used to
    // become the baseline: a change written in it was never applied.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-watch-early-'));
    try {
      const { vmi, vmiFile, disk } = watchedVmi(dir);
      const pod = startWatchingPod(vmiFile, disk);
      // Before the lease: the watch has not started yet.
      await pod.waitFor(/Domain started\./);
      expect(pod.output()).not.toMatch(/watch: applying changes of /);
      addHotplugDisk(vmi, vmiFile);
      await pod.waitFor(/VLT-GUEST: disk vd[a-z] added 8388608/);
      expect(pod.output()).toMatch(/watch: SyncVirtualMachine ok/);
      interruptLikeTerminal(pod);
      await pod.exited;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
