// SeaBIOS's debug log in the launcher's log: with VIRT_LAUNCHER_LOG_VERBOSITY above 5 (virt-controller sets it from
// the cluster's launcher verbosity or the VMI's logVerbosity label), the converter gives the amd64 domain an
// isa-debugcon into <private>/QEMUSeaBiosDebugPipe and the launcher relays that FIFO as `[SeaBios]: …` lines. The
// same verbosity switches libvirt's debug log filters on (daemons/log-filters.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

describe.skipIf(!haveDemoGuest || process.arch !== 'x64')('SeaBIOS debug log (root pod, verbosity 6)', () => {
  let root = '';
  let launcher: LauncherProcess;
  const notify = new NotifyStandIn();

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-fwlog-');
    await stageDemoGuest(root, { containerDisk: false });
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', 'u-fwlog', '--allow-emulation'];
    launcher = startLauncherInPrivateRoot(root, 'none', args, ['env', 'VIRT_LAUNCHER_LOG_VERBOSITY=6']);
    await launcher.waitForLog('Marked as ready', 90_000);
  }, 120_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it("libvirt's debug logs are on at verbosity 6: the daemon's debug lines reach the launcher log", () => {
    expect(launcher.lines.find((l) => l.msg.startsWith('Enabling libvirt log filters: 3:remote'))).toBeDefined();
    // The daemon's start-up (loading its driver, probing QEMU for the launcher's first connection) logs at debug.
    const debug = launcher.lines.filter(
      (l) => /^(libvirtd|virtqemud)$/.test(String(l.subcomponent)) && / debug : /.test(l.msg),
    );
    expect(debug.length, launcher.stderr.slice(-20).join('\n')).toBeGreaterThan(0);
  });

  it("the started guest's firmware banner arrives in the launcher log as [SeaBios] lines", async () => {
    const client = await connectLauncher(launcher.readySocket);
    const res = await client.call(
      'syncVirtualMachine',
      request(demoGuestVmi('u-fwlog', { containerDisk: false })),
      90_000,
    );
    client.close();
    expect(res.success, res.message).toBe(true);
    const banner = () =>
      launcher.lines.find((l) => l.subcomponent === 'qemu' && /^\[SeaBios\]: SeaBIOS \(version/.test(l.msg));
    for (let waited = 0; !banner() && waited < 60_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(banner(), launcher.stderr.join('\n')).toMatchObject({ component: 'virt-launcher', level: 'info' });
  }, 150_000);
});
