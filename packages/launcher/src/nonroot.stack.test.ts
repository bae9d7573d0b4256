// Issue 16 item 1: the launcher of a non-root pod. Started as uid/gid 107 with only NET_BIND_SERVICE and
// --run-as-nonroot on a private root whose /run (the pod's volumes) belongs to 107, it runs libvirtd in session
// mode and virtlogd as the same user, keeps every file under the pod's directories, and boots the demo guest
// under TCG to Running, shuts it down and exits once the handler deleted it (docs/non-root.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFile, readdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { descendants, killTree } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';
import {
  POD_UID,
  killNonRootGuests,
  listTree,
  makePodNetns,
  nonRootQemuPid,
  removePodNetns,
  preparePodRoot,
  procCreds,
  startNonRootLauncher,
} from './testing/nonroot-launcher.js';
import type { Entry, ProcCreds } from './testing/nonroot-launcher.js';

const NET_BIND_SERVICE = 1n << 10n;

async function waitForFileText(file: string, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = await readFile(file, 'utf8').catch(() => '');
    if (pattern.test(text)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${file} never matched ${pattern}; it holds:\n${text}`);
}
/** The pod's writable directories (KubeVirt's emptyDir volumes) as they appear under the root's run/. */
const POD_DIRS = ['kubevirt', 'kubevirt-private', 'kubevirt-ephemeral-disks', 'libvirt'];

describe.skipIf(!haveDemoGuest)('virt-launcher --run-as-nonroot as uid 107 (session-mode libvirtd, TCG guest)', () => {
  let root = '';
  let launcher: LauncherProcess;
  let notify: NotifyStandIn;
  let netns = '';
  /** The root outside run/ before the launcher started (.dev is the private /dev's mount point). */
  let outsideBefore: Entry[] = [];
  // No NIC is named: the launcher plans the one KubeVirt's API defaults (masquerade on the pod network) and
  // plugs it into the pod's tap0, as libvirt in a non-root pod cannot make a tap (domain/sync/default-pod-network.ts).
  const vmi = demoGuestVmi('u-nonroot', {
    terminationGracePeriodSeconds: 20,
    // Its ISO is built by genisoimage/xorriso run by a launcher that holds NET_BIND_SERVICE.
    disks: [{ name: 'cloudinit', disk: { bus: 'virtio' } }],
    volumes: [{ name: 'cloudinit', cloudInitNoCloud: { userData: '#!/bin/sh\necho vlt-nonroot-user-data\n' } }],
  });
  // A clone under /tmp is shown again inside the private /tmp by private-root.sh (its mount point there is ours).
  const repoRoot = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
  const repoView = repoRoot.startsWith('/tmp/') ? `tmp/${repoRoot.split('/')[2]}` : undefined;
  const outsidePodDirs = (rel: string) =>
    rel === '.dev' ||
    rel === 'run' ||
    rel.startsWith('run/') ||
    (repoView !== undefined && (rel === repoView || rel.startsWith(`${repoView}/`)));

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-nonroot-');
    await stageDemoGuest(root);
    notify = new NotifyStandIn();
    // virt-handler's notify socket in the pod's share dir: the pod's user must be able to connect to it.
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    await preparePodRoot(root);
    outsideBefore = await listTree(root, (rel) => rel === '.dev' || rel === 'run');
    // The VMI gets KubeVirt's default pod NIC (masquerade): virt-handler's tap0, owned by 107, is its back end.
    netns = makePodNetns();
    launcher = startNonRootLauncher(
      root,
      'none',
      [
        '--name',
        'guest',
        '--namespace',
        'default',
        '--uid',
        'u-nonroot',
        '--allow-emulation',
        '--qemu-timeout',
        '120s',
        '--grace-period-seconds',
        '20',
      ],
      netns,
    );
    await launcher.waitForLog('Marked as ready', 90_000);
  }, 120_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killNonRootGuests(root);
    notify?.close();
    if (netns) removePodNetns(netns);
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  async function podProcesses(): Promise<ProcCreds[]> {
    // The spawned process becomes the launcher itself (private-root.sh and setpriv exec it).
    const pids = [launcher.child.pid ?? -1, ...(await descendants(launcher.child.pid ?? -1))];
    const creds = await Promise.all(pids.map((p) => procCreds(p)));
    return creds.filter((c): c is ProcCreds => c !== undefined);
  }

  it('runs libvirtd (session URI) and virtlogd as 107 with nothing but NET_BIND_SERVICE, configs under the pod dirs', async () => {
    // KubeVirt's non-root launcher: this URI, logged with this message (cmd/virt-launcher/virt-launcher.go,
    // createLibvirtConnection; pkg/virt-launcher/virtwrap/cli/libvirt.go).
    const kubevirtUri = 'qemu+unix:///session?socket=/var/run/libvirt/virtqemud-sock';
    expect(launcher.lines.some((l) => l.msg === `Connecting to libvirt daemon: ${kubevirtUri}`)).toBe(true);
    const connected = launcher.lines.find((l) => l.msg === 'Connected to libvirt daemon');
    expect(connected?.uri).toBe(kubevirtUri);
    // virtlogd is spawned once the launcher is ready (only QEMU needs it): give it the moment to appear.
    let procs = await podProcesses();
    for (let i = 0; i < 100 && !procs.some((p) => /virtlogd -f/.test(p.command)); i++) {
      await new Promise((r) => setTimeout(r, 100));
      procs = await podProcesses();
    }
    const byName = (re: RegExp) => procs.filter((p) => re.test(p.command));
    for (const re of [/dist\/cli\.js/, /^virtqemud -f/, /virtlogd -f/]) {
      const found = byName(re);
      expect(found.length, `a process matching ${re}`).toBeGreaterThan(0);
      for (const p of found) {
        expect({ command: p.command, uid: p.uid, gid: p.gid }).toEqual({
          command: p.command,
          uid: POD_UID,
          gid: POD_UID,
        });
        expect(p.capEff & ~NET_BIND_SERVICE, `${p.command} keeps no other capability`).toBe(0n);
      }
    }
    // KubeVirt's layout: qemu.conf in XDG_CONFIG_HOME/libvirt, daemon configs beside the sockets.
    const qemuConf = await readFile(join(root, 'run/kubevirt-private/libvirt/qemu.conf'), 'utf8');
    expect(qemuConf).not.toMatch(/^\s*(user|group)\s*=/m);
    expect(qemuConf).toContain('security_driver = "none"');
    expect(await readFile(join(root, 'run/libvirt/libvirtd.conf'), 'utf8')).toContain(
      'unix_sock_dir = "/var/run/libvirt"',
    );
    // virt-handler's target migration proxy dials <pod>/var/run/libvirt/virtqemud-sock as root
    // (pkg/virt-handler/migration-target.go): the session daemon's socket is there, under that name only, the
    // pod's user's, and it answers.
    const libvirtDir = join(root, 'run/libvirt');
    const names = await readdir(libvirtDir);
    const sockets = [];
    for (const n of names) if ((await stat(join(libvirtDir, n))).isSocket()) sockets.push(n);
    expect(sockets.filter((n) => !n.startsWith('virtlogd')).sort()).toEqual(['virtqemud-sock']);
    const socket = await stat(join(libvirtDir, 'virtqemud-sock'));
    expect({ uid: socket.uid, mode: socket.mode & 0o777 }).toEqual({ uid: POD_UID, mode: 0o700 });
    const uri = `qemu+unix:///session?socket=${join(libvirtDir, 'virtqemud-sock')}`;
    expect(execFileSync('virsh', ['-c', uri, 'version'], { encoding: 'utf8' })).toMatch(/Running hypervisor: QEMU/);
    // The image's /etc/libvirt is not the pod's to write: the root's copies are still the harness's own.
    const etc = await listTree(join(root, 'etc/libvirt'));
    expect(etc.every((e) => e.uid === 0)).toBe(true);
  }, 60_000);

  it('boots the guest to Running as 107, shuts it down, exits after Delete; nothing written outside the pod dirs', async () => {
    const client = await connectLauncher(launcher.readySocket);
    expect(await client.call('syncVirtualMachine', request(vmi), 90_000)).toEqual({ success: true, message: '' });
    await notify.waitFor((e) => e.domain.Status.Status === 'Running', 90_000);
    const qemuPid = await nonRootQemuPid(root, 'default_guest');
    expect(qemuPid, 'QEMU pid file under $XDG_RUNTIME_DIR/libvirt/qemu/run').toBeDefined();
    const qemu = await procCreds(qemuPid ?? -1);
    expect({ uid: qemu?.uid, gid: qemu?.gid }).toEqual({ uid: POD_UID, gid: POD_UID });
    await launcher.waitForLog('Domain started.', 30_000);
    // Only a guest whose init is up handles the ACPI power button: wait for its ready line on the console log.
    const consoleLog = join(root, 'run/kubevirt-private/u-nonroot/virt-serial0-log');
    await waitForFileText(consoleLog, /VLT-GUEST: ready/, 180_000);
    expect(await readFile(consoleLog, 'utf8')).toContain('VLT-GUEST: cloud-init user-data exit=0');

    expect((await client.call('shutdownVirtualMachine', request(vmi), 20_000)).success).toBe(true);
    const off = await notify.waitFor(
      (e) => e.domain.Status.Status === 'Shutoff' && e.domain.Status.Reason !== 'Unknown',
      120_000,
    );
    expect(off.domain.Status.Reason).toBe('Shutdown');
    expect((await client.call('deleteVirtualMachine', request(vmi), 20_000)).success).toBe(true);
    await notify.waitFor((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined, 60_000);
    client.close();
    expect(await launcher.exited).toBe(0);
    // QEMU's log reached the launcher's (subcomponent qemu): at least the command line libvirt wrote.
    expect(launcher.lines.some((l) => l.subcomponent === 'qemu' && /qemu-system/.test(l.msg))).toBe(true);

    // Outside run/ (etc, var, tmp: the private /tmp) nothing was added, removed or changed owner or mode.
    expect(await listTree(root, outsidePodDirs)).toEqual(outsideBefore);
    // Under run/ only the pod's directories, and every file in them the pod's user's.
    const run = await listTree(join(root, 'run'));
    const topLevel = run.filter((e) => !e.path.includes('/')).map((e) => e.path);
    expect(topLevel.filter((p) => !POD_DIRS.includes(p) && p !== 'mount')).toEqual([]);
    expect(run.filter((e) => e.uid !== POD_UID)).toEqual([]);
    expect(run.some((e) => e.path === 'kubevirt-private/libvirt/qemu/log/default_guest.log')).toBe(true);
  }, 300_000);
});
