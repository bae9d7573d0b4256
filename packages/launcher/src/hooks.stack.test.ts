// Hook sidecars on the real launcher (docs/hooks.md): a test sidecar serves KubeVirt's hook protocol in the pod's
// hooks directory, the launcher (--hook-sidecars 1, private root, no KVM: TCG) collects it before it is ready,
// and the demo guest's domain is defined with the sidecar's change. On the same running guest
// GetDomainDirtyRateStats is measured (docs/dirty-rate.md); then the guest panics (a write to its pvpanic port
// through QEMU's monitor), the handler gets a GuestPanicked Kubernetes event (docs/k8s-events.md), and once QEMU is
// gone the sidecar hears Shutdown.
// One guest, one ordered sequence: the steps share its lifecycle.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLauncher } from './cmd-client.js';
import { request } from './testing/handler-standin.js';
import { serveNotify } from './notify-server.js';
import type { NotifyEndpoint } from './notify-server.js';
import { HookSidecar } from './testing/hook-sidecar.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

async function until(done: () => boolean, ms: number): Promise<void> {
  for (let waited = 0; !done() && waited < ms; waited += 250) await new Promise((r) => setTimeout(r, 250));
}

const MARK = 'defined with the change of the vlt test hook sidecar';

describe.skipIf(!haveDemoGuest)('hook sidecars and the dirty rate on a real launcher (TCG guest)', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyEndpoint | undefined;
  const statuses: string[] = [];
  const k8sEvents: Array<{ type: string; reason: string; message: string; involvedObject: { uid: string } }> = [];
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
    notify = await serveNotify(join(root, 'run/kubevirt/domain-notify-pipe.sock'), {
      domainEvent: (req) => {
        statuses.push((JSON.parse(req.domainJSON.toString()) as { Status: { Status: string } }).Status.Status);
      },
      k8sEvent: (req) => {
        k8sEvents.push(JSON.parse(req.eventJSON.toString()) as (typeof k8sEvents)[number]);
      },
    });
  }, 60_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.forceClose();
    sidecar.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('collects the sidecar, defines its change, measures the dirty rate, reports a panic, then calls Shutdown', async () => {
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
      // A pvpanic device (KubeVirt's spec.domain.devices.panicDevices) so the guest can report a panic.
      const vmi = JSON.parse(demoGuestVmi(uid, { containerDisk: false }).toString()) as {
        spec: { domain: { devices: Record<string, unknown> } };
      };
      vmi.spec.domain.devices.panicDevices = [{ model: 'isa' }];
      const synced = await client.call('syncVirtualMachine', request(Buffer.from(JSON.stringify(vmi))), 120_000);
      expect(synced, launcher.stderr.join('\n')).toMatchObject({ success: true });
      const [define] = sidecar.callsOf('OnDefineDomain');
      expect(String(define?.request.vmi)).toContain(`"uid":"${uid}"`);
      expect(String(define?.request.domainXML)).toContain('<name>default_guest</name>');
      const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
      const xml = execFileSync('virsh', ['-c', uri, 'dumpxml', 'default_guest']).toString('utf8');
      expect(xml).toContain(`<description>${MARK}</description>`);

      await until(() => statuses.includes('Running'), 120_000);
      const rate = await client.call('getDomainDirtyRateStats', {}, 30_000);
      expect(rate.response, launcher.stderr.join('\n')).toEqual({ success: true, message: '' });
      expect(typeof rate.dirtyRateMbs).toBe('bigint');
      expect(rate.dirtyRateMbs >= 0n).toBe(true);
      expect(sidecar.callsOf('Shutdown')).toHaveLength(0);

      // The guest "panics": its pvpanic port (0x505) gets the panicked bit, as a panicking kernel would write it.
      execFileSync('virsh', ['-c', uri, 'qemu-monitor-command', 'default_guest', '--hmp', 'o/b 0x505 1']);
      await until(() => k8sEvents.length > 0, 60_000);
      expect(k8sEvents[0]).toMatchObject({
        type: 'Warning',
        reason: 'GuestPanicked',
        message: 'GuestPanicked (details unavailable)',
        involvedObject: { uid },
      });
    } finally {
      client.close();
    }
    await until(() => sidecar.callsOf('Shutdown').length > 0, 60_000);
    expect(sidecar.callsOf('Shutdown'), launcher.stderr.join('\n')).toHaveLength(1);
  }, 300_000);
});
