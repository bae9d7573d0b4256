// Hook sidecars on the real launcher (docs/hooks.md): a test sidecar serves KubeVirt's hook protocol in the pod's
// hooks directory, the launcher (--hook-sidecars 1, private root, no KVM: TCG) collects it before it is ready,
// and the demo guest's domain is defined with the sidecar's change. On the same running guest
// GetDomainDirtyRateStats is measured (docs/dirty-rate.md); once QEMU is gone the sidecar hears Shutdown.
// One guest, one ordered sequence: the steps share its lifecycle.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { HookSidecar } from './testing/hook-sidecar.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

const MARK = 'defined with the change of the vlt test hook sidecar';

describe.skipIf(!haveDemoGuest)('hook sidecars and the dirty rate on a real launcher (TCG guest)', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  const notify = new NotifyStandIn();
  const sidecar = new HookSidecar({
    name: 'vlt-test-hook',
    hookPoints: [
      { name: 'OnDefineDomain', priority: 0 },
      { name: 'Shutdown', priority: 0 },
    ],
    onDefineDomain: (xml) => xml.replace(/<\/domain>\s*$/, `<description>${MARK}</description></domain>`),
  });

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-hooks-');
    await stageDemoGuest(root, { containerDisk: false });
    // /var/run/kubevirt-hooks in the pod is <root>/run/kubevirt-hooks here; one directory per sidecar container.
    await sidecar.listen(join(root, 'run/kubevirt-hooks/hook-sidecar-0/hook.sock'));
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
  }, 60_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify.close();
    sidecar.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('collects the sidecar, defines its change, measures the dirty rate, then calls Shutdown', async () => {
    const uid = 'u-hooks';
    const args = [
      '--name',
      'guest',
      '--namespace',
      'default',
      '--uid',
      uid,
      '--allow-emulation',
      '--hook-sidecars',
      '1',
    ];
    launcher = startLauncherInPrivateRoot(root, 'none', args);
    await launcher.waitForLog('Marked as ready', 120_000);
    // Collected before the launcher was ready: Info was asked, nothing else yet.
    expect(sidecar.calls.map((c) => c.method)).toEqual(['Info']);
    expect(launcher.lines.some((l) => l.msg === 'Collected all requested hook sidecar sockets')).toBe(true);

    const client = await connectLauncher(launcher.readySocket);
    try {
      const synced = await client.call(
        'syncVirtualMachine',
        request(demoGuestVmi(uid, { containerDisk: false })),
        120_000,
      );
      expect(synced, launcher.stderr.join('\n')).toMatchObject({ success: true });
      const [define] = sidecar.callsOf('OnDefineDomain');
      expect(String(define?.request.vmi)).toContain(`"uid":"${uid}"`);
      expect(String(define?.request.domainXML)).toContain('<name>default_guest</name>');
      const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/libvirt-sock')}`;
      const xml = execFileSync('virsh', ['-c', uri, 'dumpxml', 'default_guest']).toString('utf8');
      expect(xml).toContain(`<description>${MARK}</description>`);

      await notify.waitFor((e) => e.domain.Status.Status === 'Running', 120_000);
      const rate = await client.call('getDomainDirtyRateStats', {}, 30_000);
      expect(rate.response, launcher.stderr.join('\n')).toEqual({ success: true, message: '' });
      expect(typeof rate.dirtyRateMbs).toBe('bigint');
      expect(rate.dirtyRateMbs >= 0n).toBe(true);
      expect(sidecar.callsOf('Shutdown')).toHaveLength(0);

      expect(await client.call('killVirtualMachine', request(demoGuestVmi(uid)), 60_000)).toMatchObject({
        success: true,
      });
    } finally {
      client.close();
    }
    for (let waited = 0; sidecar.callsOf('Shutdown').length === 0 && waited < 60_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(sidecar.callsOf('Shutdown'), launcher.stderr.join('\n')).toHaveLength(1);
  }, 300_000);
});
