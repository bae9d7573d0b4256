// The real thing: the launcher starts its own libvirtd inside `private-root.sh exec` (--run-root /, as in
// a pod) and boots the tiny demo guest under TCG from a container disk; a handler stand-in drives it.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, signalLauncherNode, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

function guestVmi(uid: string): Buffer {
  return demoGuestVmi(uid, {
    disks: [{ name: 'cloudinit', disk: { bus: 'virtio' } }],
    volumes: [{ name: 'cloudinit', cloudInitNoCloud: { userData: '#!/bin/sh\necho vlt-user-data-ran\n' } }],
    terminationGracePeriodSeconds: 10,
  });
}

/** Reads the guest's serial console (QEMU binds the socket when it starts: retry until it exists). */
function readConsole(path: string, until: RegExp, timeoutMs = 90_000): Promise<string> {
  return new Promise((resolveP, reject) => {
    let text = '';
    const deadline = Date.now() + timeoutMs;
    const attempt = () => {
      const sock = connect(path);
      sock.on('data', (d) => {
        text += d.toString();
        if (until.test(text)) {
          sock.destroy();
          resolveP(text);
        }
      });
      sock.on('error', () => {
        if (Date.now() > deadline) reject(new Error(`console ${path} never opened; got: ${text}`));
        else setTimeout(attempt, 200);
      });
      sock.on('close', () => {
        if (!until.test(text) && Date.now() > deadline) reject(new Error(`console output: ${text}`));
      });
    };
    attempt();
  });
}

/** The Unix sockets in the pod's /var/run/libvirt, by name. */
async function libvirtSockets(root: string): Promise<string[]> {
  const dir = join(root, 'run/libvirt');
  const names = await readdir(dir);
  const isSocket = await Promise.all(names.map(async (n) => (await stat(join(dir, n))).isSocket()));
  return names.filter((_, i) => isSocket[i]).sort();
}

/**
 * What KubeVirt v1.9 finds in a root pod's /var/run/libvirt: virt-handler's target migration proxy dials
 * virtqemud-sock (pkg/virt-handler/migration-target.go), the root launcher's qemu:///system resolves to it
 * (cmd/virt-launcher/virt-launcher.go); libvirtd's own names are gone once it has bound them.
 */
const QEMUD_SOCKETS = [
  'virtlogd-admin-sock',
  'virtlogd-sock',
  'virtqemud-admin-sock',
  'virtqemud-sock',
  'virtqemud-sock-ro',
];

function answersThroughQemudSockets(root: string): void {
  const dir = join(root, 'run/libvirt');
  const rw = execFileSync('virsh', ['-c', `qemu+unix:///system?socket=${dir}/virtqemud-sock`, 'version']);
  expect(rw.toString()).toMatch(/Running hypervisor: QEMU/);
  const ro = execFileSync('virsh', ['-r', '-c', `qemu+unix:///system?socket=${dir}/virtqemud-sock-ro`, 'version']);
  expect(ro.toString()).toMatch(/Running hypervisor: QEMU/);
  const admin = execFileSync('virt-admin', ['-c', `libvirtd:///system?socket=${dir}/virtqemud-admin-sock`, 'srv-list']);
  expect(admin.toString()).toMatch(/\blibvirtd\b/);
}

describe.skipIf(!haveDemoGuest)('virt-launcher with its own libvirtd and a TCG guest', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyStandIn | undefined;

  afterEach(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  // Every guest here runs under TCG on any host: the private root has no /dev/kvm and emulation is allowed.
  async function boot(uid: string, emulation: string[] = ['--allow-emulation']): Promise<LauncherProcess> {
    root = await mkdtemp('/tmp/vlt-launcher-root-');
    await stageDemoGuest(root);
    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const l = startLauncherInPrivateRoot(root, 'none', [
      '--name',
      'guest',
      '--namespace',
      'default',
      '--uid',
      uid,
      ...emulation,
      '--qemu-timeout',
      '120s',
      '--grace-period-seconds',
      '20',
    ]);
    launcher = l;
    await l.waitForLog('Marked as ready', 90_000);
    return l;
  }

  it('boots the guest from a container disk; re-sync leaves the write layer alone; SIGTERM powers it off', async () => {
    const l = await boot('u-boot');
    const client = await connectLauncher(l.readySocket);
    const vmi = guestVmi('u-boot');
    expect(await client.call('syncVirtualMachine', request(vmi), 60_000)).toEqual({ success: true, message: '' });
    await l.waitForLog('Domain started.');
    await notify?.waitFor((e) => e.eventType === 'ADDED');
    await notify?.waitFor((e) => e.domain.Status.Status === 'Running');
    const console = await readConsole(join(root, 'run/kubevirt-private/u-boot/virt-serial0'), /VLT-GUEST: ready/);
    expect(console).toContain('VLT-GUEST: containerdisk vlt-demo-containerdisk-1');
    // NoCloud's instance-id is the firmware UUID (the SMBIOS uuid the domain gives the guest), as in KubeVirt.
    const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
    // Run root /, as in a pod: the launcher dials KubeVirt's own URI and says so with KubeVirt's message.
    expect(l.lines.some((x) => x.msg === 'Connecting to libvirt daemon: qemu:///system')).toBe(true);
    expect(l.lines.find((x) => x.msg === 'Connected to libvirt daemon')?.uri).toBe('qemu:///system');
    expect((await libvirtSockets(root)).filter((n) => !n.startsWith('virtlogd'))).toEqual(
      QEMUD_SOCKETS.filter((n) => !n.startsWith('virtlogd')),
    );
    answersThroughQemudSockets(root);
    const live = execFileSync('virsh', ['-c', uri, 'dumpxml', 'default_guest']).toString('utf8');
    const firmwareUuid = /<entry name='uuid'>([^<]+)<\/entry>/.exec(live)?.[1] ?? 'no smbios uuid';
    expect(console).toContain(`VLT-GUEST: cloud-init instance-id=${firmwareUuid}\r\n`);
    expect(console).toContain('VLT-GUEST: cloud-init user-data exit=0');

    const layer = join(root, 'run/kubevirt-ephemeral-disks/disk-data/containerdisk/disk.qcow2');
    const before = await stat(layer);
    expect((await client.call('syncVirtualMachine', request(vmi), 60_000)).success).toBe(true);
    const after = await stat(layer);
    expect(after.ino).toBe(before.ino);
    expect(l.lines.filter((x) => x.msg === 'Domain defined.')).toHaveLength(1);

    // SIGTERM only marks the domain; playing virt-handler, the test answers the mark with Shutdown (ACPI), sees
    // the guest power off (Shutoff/Shutdown: Succeeded, no deletionTimestamp while defined), then Deletes it.
    await signalLauncherNode(l, 'SIGTERM');
    await notify?.waitFor((e) => e.domain.Spec.Metadata?.KubeVirt?.GracePeriod?.MarkedForGracefulShutdown === true);
    expect((await client.call('shutdownVirtualMachine', request(vmi), 20_000)).success).toBe(true);
    // The definition's ADDED event is Shutoff/Unknown too: wait for the power-off's own event.
    const powerOff = (e: { domain: { Status: { Status: string; Reason: string } } }) =>
      e.domain.Status.Status === 'Shutoff' && e.domain.Status.Reason !== 'Unknown';
    const off = await notify?.waitFor(powerOff, 60_000);
    expect(off?.domain.Status.Reason).toBe('Shutdown');
    expect(off?.domain.ObjectMeta.deletionTimestamp).toBeUndefined();
    expect((await client.call('deleteVirtualMachine', request(vmi), 20_000)).success).toBe(true);
    await notify?.waitFor((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined, 60_000);
    client.close();
    await l.waitForLog('Exiting...', 60_000);
    expect(l.lines.some((x) => /Attempting to kill domain/.test(x.msg))).toBe(false);
    expect(l.lines.some((x) => x.level === 'error' && /libvirtd/.test(x.msg))).toBe(false);
  }, 240_000);

  it("without --allow-emulation and without /dev/kvm, SyncVirtualMachine fails with KubeVirt's message", async () => {
    const l = await boot('u-nokvm', []);
    const client = await connectLauncher(l.readySocket);
    const res = await client.call('syncVirtualMachine', request(guestVmi('u-nokvm')), 60_000);
    expect(res.success).toBe(false);
    expect(res.message).toContain('kvm not present and emulation is not allowed');
    // Refused before anything was defined: nothing for libvirt to start.
    expect(l.lines.some((x) => x.msg === 'Domain defined.')).toBe(false);
    client.close();
  }, 240_000);

  it('survives a killed libvirtd, and exits when QEMU is killed after telling the handler', async () => {
    const l = await boot('u-kill');
    const client = await connectLauncher(l.readySocket);
    expect((await client.call('syncVirtualMachine', request(guestVmi('u-kill')), 60_000)).success).toBe(true);
    await l.waitForLog('Domain started.');

    await notify?.waitFor((e) => e.domain.Status.Status === 'Running');
    const before = notify?.events.length ?? 0;
    const daemonPid = Number((await readFile(join(root, 'run/libvirt/libvirtd.pid'), 'utf8')).trim());
    process.kill(daemonPid, 'SIGKILL');
    await l.waitForLog('libvirtd exited, restarting');
    await expect
      .poll(() => l.lines.filter((x) => x.msg === 'Connected to libvirt daemon').length, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(2);
    // The restarted libvirtd's sockets get virtqemud's names again, and the dead one's are gone.
    await expect.poll(() => libvirtSockets(root), { timeout: 30_000 }).toEqual(QEMUD_SOCKETS);
    answersThroughQemudSockets(root);
    // Events of the gap are lost: after the reconnect the handler gets the domain's current state once.
    await l.waitForLog(/^Libvirt reconnected, domain default_guest/, 30_000);
    const reconciled = await notify?.waitFor((e) => (notify?.events.indexOf(e) ?? 0) >= before, 30_000);
    expect(reconciled?.domain.Status.Status).toBe('Running');
    const dom = await client.call('getDomain', {}, 10_000);
    expect(JSON.parse(dom.domain).Status.Status).toBe('Running');

    const qemuPid = Number((await readFile(join(root, 'run/libvirt/qemu/default_guest.pid'), 'utf8')).trim());
    process.kill(qemuPid, 'SIGKILL');
    // Still defined: Shutoff without deletionTimestamp. QEMU may die while the new libvirtd is still reattaching to
    // it, and libvirt then emits no event: the test reads the state as virt-handler's resync does, by GetDomain.
    type Seen = { Status: { Status: string }; ObjectMeta: { deletionTimestamp?: string } };
    const shutoff = async () => JSON.parse((await client.call('getDomain', {}, 10_000)).domain) as Seen;
    await expect.poll(async () => (await shutoff()).Status.Status, { timeout: 60_000 }).toBe('Shutoff');
    expect((await shutoff()).ObjectMeta.deletionTimestamp).toBeUndefined();
    expect(notify?.events.some((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined)).toBe(false);
    await l.waitForLog(`Process default_guest and pid ${qemuPid} is gone!`, 30_000);
    expect((await client.call('deleteVirtualMachine', request(guestVmi('u-kill')), 20_000)).success).toBe(true);
    const gone = await notify?.waitFor((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined, 60_000);
    expect(gone?.domain.Status).toMatchObject({ Status: 'NoState', Reason: 'NonExistent' });
    await l.waitForLog('Final Delete notification sent', 30_000);
    expect(await l.exited).toBe(0);
    client.close();
  }, 240_000);
});
