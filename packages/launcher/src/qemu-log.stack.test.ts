// Issue 16 item 3: QEMU's own log reaches the launcher's log (lines with subcomponent qemu, as KubeVirt's launcher
// copies libvirt's <domain>.log), so a guest that QEMU refuses to start is explained in the pod's log. The kernel
// boot image is replaced with bytes that are no kernel: libvirt starts QEMU, QEMU exits with its own message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

describe.skipIf(!haveDemoGuest)('QEMU log in the launcher log (root pod, own libvirtd)', () => {
  let root = '';
  let launcher: LauncherProcess;
  const notify = new NotifyStandIn();

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-qemulog-');
    await stageDemoGuest(root, { containerDisk: false });
    // 4 KiB of noise where the kernel-boot container left the kernel: QEMU finds no Linux header in it.
    await writeFile(join(root, 'run/kubevirt/container-disks/kernel-boot/vmlinuz'), randomBytes(4096));
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', 'u-qemulog', '--allow-emulation'];
    launcher = startLauncherInPrivateRoot(root, 'none', args);
    await launcher.waitForLog('Marked as ready', 90_000);
  }, 120_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it("a start QEMU refuses fails the sync, and QEMU's own words are in the log as subcomponent qemu", async () => {
    const client = await connectLauncher(launcher.readySocket);
    const res = await client.call(
      'syncVirtualMachine',
      request(demoGuestVmi('u-qemulog', { containerDisk: false })),
      90_000,
    );
    client.close();
    expect(res.success).toBe(false);
    // QEMU's message, not libvirt's summary of it: the line must come from the followed log file.
    const fromQemu = (re: RegExp) => launcher.lines.find((l) => l.subcomponent === 'qemu' && re.test(l.msg));
    const refusal = /linux kernel too old|could not load (linux )?kernel/i;
    for (let waited = 0; !fromQemu(refusal) && waited < 30_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(fromQemu(refusal), launcher.stderr.join('\n')).toMatchObject({ component: 'virt-launcher', level: 'info' });
    // The command line libvirt wrote first arrives joined into one line (libvirt breaks it with backslashes).
    const commandLine = launcher.lines.find(
      (l) => l.subcomponent === 'qemu' && /qemu-system-\S+ .*-kernel /.test(l.msg),
    );
    expect(commandLine?.msg).toContain('/var/run/kubevirt/container-disks/kernel-boot/vmlinuz');
  }, 150_000);
});
