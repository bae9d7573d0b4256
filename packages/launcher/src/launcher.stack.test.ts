// The real launcher binary against libvirt's test:///default driver, driven by a handler stand-in built from
// the same protos: a cmd client and a notify server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLauncher } from './cmd-client.js';
import type { LauncherClient } from './cmd-client.js';
import { NotifyStandIn, request, vmiJson } from './testing/handler-standin.js';
import { makeRunRoot, removeRunRoot, startLauncher } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';

/** A step several tests need: run once, on first use, whichever test (or `-t` selection) asks first. */
function once<T>(step: () => Promise<T>): () => Promise<T> {
  let done: Promise<T> | undefined;
  return () => (done ??= step());
}

// The lifecycle steps (sync, kill) are shared by the tests that need them, so each test also passes on its own.
describe('virt-launcher with test:///default and a handler stand-in', () => {
  let root = '';
  let launcher: LauncherProcess;
  let client: LauncherClient;
  const notify = new NotifyStandIn();
  const vmi = vmiJson('web');

  beforeAll(async () => {
    root = await makeRunRoot();
    launcher = startLauncher(root, [
      '--libvirt-uri',
      'test:///default',
      '--name',
      'web',
      '--namespace',
      'default',
      '--uid',
      'uid-web',
      '--qemu-timeout',
      '60s',
      '--grace-period-seconds',
      '2',
      // test:///default runs no QEMU; emulation is allowed so the sync never depends on the host's /dev/kvm.
      '--allow-emulation',
    ]);
    await notify.listen(launcher.notifySocket);
    await launcher.waitForLog('Marked as ready');
    client = await connectLauncher(launcher.readySocket);
  });

  afterAll(async () => {
    client?.close();
    await launcher?.stop('SIGKILL');
    notify.close();
    await removeRunRoot(root);
  });

  const synced = once(async () => {
    const reply = await client.call('syncVirtualMachine', request(vmi));
    await launcher.waitForLog('Domain started.');
    const added = await notify.waitFor((e) => e.eventType === 'ADDED');
    await notify.waitFor((e) => e.domain.Status.Status === 'Running');
    return { reply, added };
  });

  // Events arrive after the calls that caused them, and each reads the domain's state when it is handled: the
  // definition's ADDED, handled late, may itself say Shutoff/Destroyed. The kill's own event is the MODIFIED one.
  const killed = once(async () => {
    await synced();
    const reply = await client.call('killVirtualMachine', request(vmi));
    const off = await notify.waitFor(
      (e) =>
        e.eventType === 'MODIFIED' && e.domain.Status.Status === 'Shutoff' && e.domain.Status.Reason === 'Destroyed',
    );
    return { reply, off };
  });

  it('syncs: defines and starts the domain, a re-sync changes nothing', async () => {
    const { reply, added } = await synced();
    expect(reply).toEqual({ success: true, message: '' });
    expect(added.domain.ObjectMeta).toMatchObject({ name: 'web', namespace: 'default', uid: 'uid-web' });
    // The handler sends the same VMI several times a second: concurrent syncs serialise and define once.
    const again = await Promise.all([1, 2, 3].map(() => client.call('syncVirtualMachine', request(vmi))));
    expect(again.every((r) => r.success)).toBe(true);
    expect(launcher.lines.filter((l) => l.msg === 'Domain defined.')).toHaveLength(1);
    expect(launcher.lines.filter((l) => l.msg === 'Domain started.')).toHaveLength(1);
    // Defined and started: one ADDED (for the definition), the start is a MODIFIED.
    expect(notify.events.filter((e) => e.eventType === 'ADDED')).toHaveLength(1);
  });

  it('GetDomain answers KubeVirt JSON with Go field names', async () => {
    await synced();
    const res = await client.call('getDomain', {});
    expect(res.response?.success).toBe(true);
    const dom = JSON.parse(res.domain) as {
      kind: string;
      ObjectMeta: { name: string };
      Spec: { Name: string; Metadata: { KubeVirt: { UID: string } } };
      Status: { Status: string };
    };
    expect(dom.kind).toBe('Domain');
    expect(dom.ObjectMeta.name).toBe('web');
    expect(dom.Spec.Name).toBe('default_web');
    expect(dom.Spec.Metadata.KubeVirt.UID).toBe('uid-web');
    expect(dom.Status).toMatchObject({ Status: 'Running' });
    const version = await client.call('getQemuVersion', {});
    expect(version.response?.success).toBe(true);
    expect(version.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('pauses and unpauses, and each change reaches notify', async () => {
    await synced();
    expect((await client.call('pauseVirtualMachine', request(vmi))).success).toBe(true);
    await notify.waitFor((e) => e.domain.Status.Status === 'Paused' && e.domain.Status.Reason === 'User');
    expect((await client.call('unpauseVirtualMachine', request(vmi))).success).toBe(true);
    const running = notify.events.length;
    await notify.waitFor((e) => notify.events.indexOf(e) >= running && e.domain.Status.Status === 'Running');
  });

  it('refuses malformed and hostile VMIs by name and keeps serving', async () => {
    const bad = await client.call('syncVirtualMachine', request(Buffer.from('{not json')));
    expect(bad).toEqual({ success: false, message: 'No valid vmi object present in command server request' });
    const hostile = vmiJson('evil', {
      volumes: [{ name: '../../etc', emptyDisk: { capacity: '1Mi' } }],
      disks: [{ name: '../../etc', disk: { bus: 'virtio' } }],
    });
    const res = await client.call('syncVirtualMachine', request(hostile));
    expect(res.success).toBe(false);
    expect(res.message).toContain('../../etc');
    expect((await client.call('ping', {})).success).toBe(true);
  });

  it('formats libvirt errors as KubeVirt does', async () => {
    // The test driver has no such domain: libvirt's own NO_DOMAIN error travels to the client.
    const other = vmiJson('absent');
    const res = await client.call('resetVirtualMachine', request(other));
    // As KubeVirt's ResetVMI: the lookup's libvirt error itself, formatted, not a launcher-made text.
    expect(res.success).toBe(false);
    expect(res.message).toMatch(/^LibvirtError\(Code=42, Domain=\d+, Message='Domain not found.*'\)$/);
    const pauseMissing = await client.call('pauseVirtualMachine', request(other));
    expect(pauseMissing.success).toBe(false);
  });

  it('kill stops the domain; while it is still defined its events carry no deletionTimestamp', async () => {
    const { reply, off } = await killed();
    expect(reply.success).toBe(true);
    expect(off.domain.Status.Reason).toBe('Destroyed');
    expect(off.domain.ObjectMeta.deletionTimestamp).toBeUndefined();
    // The launcher waits for the handler's Delete instead of exiting on its own.
    await launcher.waitForLog('Waiting on final notifications to be sent to virt-handler.');
    expect(notify.events.some((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined)).toBe(false);
    expect(launcher.lines.some((l) => l.msg === 'Exiting...')).toBe(false);
  });

  it("after the handler's Delete the event carries deletionTimestamp and the launcher exits 0", async () => {
    await killed();
    expect(await client.call('deleteVirtualMachine', request(vmi))).toEqual({ success: true, message: '' });
    const gone = await notify.waitFor((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined);
    expect(gone.eventType).toBe('MODIFIED');
    expect(gone.domain.Status).toMatchObject({ Status: 'NoState', Reason: 'NonExistent' });
    await launcher.waitForLog('Final Delete notification sent');
    expect(launcher.lines.some((l) => /Attempting to kill domain/.test(l.msg))).toBe(false);
    expect(await launcher.exited).toBe(0);
  });
});

describe('virt-launcher Delete of a defined, never started domain', () => {
  it('undefines it and reports NoState/NonExistent with a deletionTimestamp', async () => {
    const root = await makeRunRoot();
    const notify = new NotifyStandIn();
    const launcher = startLauncher(root, [
      '--libvirt-uri',
      'test:///default',
      '--name',
      'db',
      '--namespace',
      'default',
      '--allow-emulation',
    ]);
    try {
      await notify.listen(launcher.notifySocket);
      await launcher.waitForLog('Marked as ready');
      const client = await connectLauncher(launcher.readySocket);
      // A VMI already Running per its status is only defined, never (re)started by the launcher.
      const vmi = vmiJson('db', { spec: {} });
      const doc = JSON.parse(vmi.toString()) as Record<string, unknown>;
      doc.status = { phase: 'Running' };
      const running = Buffer.from(JSON.stringify(doc));
      expect((await client.call('syncVirtualMachine', request(running))).success).toBe(true);
      expect(launcher.lines.some((l) => l.msg === 'Domain started.')).toBe(false);
      expect(await client.call('deleteVirtualMachine', request(running))).toEqual({ success: true, message: '' });
      await launcher.waitForLog('Domain undefined.');
      // An event handled late may find no domain already (NonExistent) without being the deletion: the deletion's
      // event is the one with a deletionTimestamp, and it must say MODIFIED NoState/NonExistent.
      const gone = await notify.waitFor((e) => e.domain.ObjectMeta.deletionTimestamp !== undefined);
      expect(gone.domain.Status.Reason).toBe('NonExistent');
      expect(gone.eventType).toBe('MODIFIED');
      expect(gone.domain.Status.Status).toBe('NoState');
      expect((await client.call('getDomain', {})).domain).not.toContain('"default_db"');
      client.close();
    } finally {
      await launcher.stop('SIGKILL');
      notify.close();
      await removeRunRoot(root);
    }
  });
});
