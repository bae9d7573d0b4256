// The launcher's libvirtd loads the QEMU driver and no other (driver-dir.ts): a real launcher in a private root
// (as in a pod, --run-root /), its libvirtd's environment and memory maps read from /proc once it is ready.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QEMU_DRIVER_MODULE } from './driver-dir.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from '../testing/launcher-process.js';
import type { LauncherProcess } from '../testing/launcher-process.js';

const OTHER_DRIVERS = /libvirt_driver_(network|nodedev|nwfilter|interface|secret|storage)\.so/;
// virtqemud, where installed, is the QEMU driver alone and gets no driver directory.
const monolithic = !['/usr/sbin/virtqemud', '/usr/bin/virtqemud'].some((p) => existsSync(p));

describe.runIf(monolithic)('the launcher’s libvirtd loads only the QEMU driver', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let daemonPid = 0;

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-drivers-');
    launcher = startLauncherInPrivateRoot(root, 'none', ['--name', 'drivers', '--namespace', 'default']);
    await launcher.waitForLog('Marked as ready', 90_000);
    daemonPid = Number((await readFile(join(root, 'run/libvirt/libvirtd.pid'), 'utf8')).trim());
  }, 120_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('starts libvirtd with LIBVIRT_DRIVER_DIR at its own 0755 directory holding one link, to the QEMU module', async () => {
    const environ = (await readFile(`/proc/${daemonPid}/environ`, 'utf8')).split('\0');
    expect(environ).toContain('LIBVIRT_DRIVER_DIR=/var/run/kubevirt-private/libvirt-drivers');
    const dir = join(root, 'run/kubevirt-private/libvirt-drivers');
    expect((await lstat(dir)).mode & 0o7777).toBe(0o755);
    expect(await readdir(dir)).toEqual([QEMU_DRIVER_MODULE]);
    expect(launcher?.lines.some((l) => l.msg.startsWith('libvirtd loads only the QEMU driver'))).toBe(true);
  });

  it('has the QEMU driver mapped and none of the six others', async () => {
    const maps = await readFile(`/proc/${daemonPid}/maps`, 'utf8');
    expect(maps).toContain(QEMU_DRIVER_MODULE);
    expect(maps).not.toMatch(OTHER_DRIVERS);
  });

  it('still answers as the QEMU driver', () => {
    const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
    // Without its QEMU driver the daemon refuses a qemu:/// connection ("no connection driver available");
    // these calls need no capability probe, so they stay cheap.
    expect(execFileSync('virsh', ['-q', '-c', uri, 'hostname'], { encoding: 'utf8' }).trim()).not.toBe('');
    expect(execFileSync('virsh', ['-q', '-c', uri, 'list', '--all'], { encoding: 'utf8' }).trim()).toBe('');
  });
});
