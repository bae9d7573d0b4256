// Issue 23 item 2: the launcher once cleared its umask while the libvirt daemons were being spawned, so their
// config files were 0666 and their state directories (etc/libvirt/qemu included) 0777: any process of the pod
// could rewrite qemu.conf or plant files for libvirtd. A real launcher (own libvirtd and virtlogd, in a private
// root) is started, and optionally made to boot a guest; then every file under the root is checked.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, privateRootScript, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

/**
 * What may be writable by others, how far (`allowed`: the write bits it may have), and why. Everything else
 * under the root must be neither group- nor world-writable (files, sockets) or world-writable (directories).
 */
const OPEN_ON_PURPOSE: Array<{ path: RegExp; allowed: number; why: string }> = [
  // Made by tools/sandbox/private-root.sh as on any host: sticky, every user's scratch space.
  { path: /^(var\/)?tmp$/, allowed: 0o022, why: 'sticky /tmp and /var/tmp of the private root (1777, as on a host)' },
  // The read-only socket keeps libvirt's default unix_sock_ro_perms (0777): it serves read-only API calls only.
  // The read-write one is not excused (issue 36 item 8: it was 0777 without auth, so any process of the pod could
  // drive the daemon as root); the test below checks its exact mode and owner.
  {
    path: /^run\/libvirt\/(libvirt|virtqemud)-sock-ro$/,
    allowed: 0o022,
    why: 'libvirt read-only daemon socket, 0777 by design',
  },
  // libvirt starts QEMU with its own fixed umask 002 whatever the daemon's is, so QEMU's sockets are
  // group-writable (group: the pod's qemu/root group); never world-writable.
  {
    path: /^run\/kubevirt-private\/[^/]+\/virt-(serial\d+|vnc)$/,
    allowed: 0o020,
    why: 'QEMU serial console and VNC sockets (libvirt gives QEMU umask 002)',
  },
  {
    path: /^var\/lib\/libvirt\/qemu\/(domain-[^/]+\/monitor\.sock|channel\/target\/domain-[^/]+\/org\.qemu\.guest_agent\.0)$/,
    allowed: 0o020,
    why: 'QEMU monitor and guest-agent channel sockets (libvirt gives QEMU umask 002)',
  },
];

interface Finding {
  path: string;
  mode: string;
  kind: string;
}

async function walk(root: string, dir = root, out: Finding[] = []): Promise<Finding[]> {
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    // Gone meanwhile (a daemon's temp file), or a link (a link's own mode is always 0777 and means nothing).
    if (info === undefined || info.isSymbolicLink()) continue;
    const rel = relative(root, path);
    const mode = info.mode & 0o7777;
    const kind = info.isDirectory() ? 'directory' : info.isSocket() ? 'socket' : info.isFile() ? 'file' : 'other';
    const writable = mode & (info.isDirectory() ? 0o002 : 0o022);
    const excused = OPEN_ON_PURPOSE.some((open) => open.path.test(rel) && (writable & ~open.allowed) === 0);
    if (writable !== 0 && !excused) {
      out.push({ path: rel, mode: mode.toString(8).padStart(4, '0'), kind });
    }
    if (info.isDirectory()) await walk(root, path, out);
  }
  return out;
}

function guestVmi(uid: string): Buffer {
  return demoGuestVmi(uid, {
    disks: [
      { name: 'cloudinit', disk: { bus: 'virtio' } },
      { name: 'scratch', disk: { bus: 'virtio' } },
    ],
    volumes: [
      { name: 'cloudinit', cloudInitNoCloud: { userData: '#!/bin/sh\necho modes\n' } },
      { name: 'scratch', emptyDisk: { capacity: '8Mi' } },
    ],
  });
}

describe('file modes of a running pod', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyStandIn | undefined;

  afterEach(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  async function start(uid: string): Promise<LauncherProcess> {
    root = await mkdtemp('/tmp/vlt-launcher-modes-');
    await stageDemoGuest(root).catch(() => undefined);
    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    // The sandbox's own directories (etc, var, .dev) are made first with the test's umask: they belong to the
    // harness, not to the pod. The launcher then starts with umask 0, as a careless parent might hand it: it
    // must tighten the mask itself rather than rely on inheriting 022.
    execFileSync(privateRootScript, ['exec', root, '--kvm', 'none', '--', 'true']);
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', uid, '--allow-emulation'];
    launcher = startLauncherInPrivateRoot(root, 'none', args, ['sh', '-c', 'umask 0 && exec "$@"', 'sh']);
    await launcher.waitForLog('Marked as ready', 90_000);
    return launcher;
  }

  it('after start-up: no config file or daemon state directory is writable by others', async () => {
    await start('u-modes-start');
    // The daemons' own files exist by now (the launcher connected to libvirtd before it was ready).
    expect(existsSync(join(root, 'etc/libvirt/qemu.conf'))).toBe(true);
    expect(await walk(root)).toEqual([]);
    // The published read-write socket (renamed from libvirt-sock: same inode, so the mode libvirtd gave it) is the
    // daemon's user's only, and the launcher, running as that user, still drives the daemon through it.
    const socket = await lstat(join(root, 'run/libvirt/virtqemud-sock'));
    expect({ socket: socket.isSocket(), uid: socket.uid, mode: (socket.mode & 0o777).toString(8) }).toEqual({
      socket: true,
      uid: process.getuid?.(),
      mode: '700',
    });
    const client = await connectLauncher(launcher!.readySocket);
    const domain = await client.call('getDomain', {}, 20_000);
    client.close();
    expect(domain.response).toEqual({ success: true, message: '' });
  }, 120_000);

  it.runIf(haveDemoGuest)(
    'after a guest started: write layer, ISOs, empty disk and QEMU files too',
    async () => {
      const l = await start('u-modes-sync');
      const client = await connectLauncher(l.readySocket);
      const result = await client.call('syncVirtualMachine', request(guestVmi('u-modes-sync')), 90_000);
      client.close();
      expect(result).toEqual({ success: true, message: '' });
      await l.waitForLog('Domain started.', 60_000);
      expect(existsSync(join(root, 'run/kubevirt-ephemeral-disks/disk-data/containerdisk/disk.qcow2'))).toBe(true);
      expect(await walk(root)).toEqual([]);
    },
    240_000,
  );
});
