// Issue 33 item 5 on one booted demo guest (QEMU TCG, chosen on purpose: there may be no KVM): a disk hot-plugged
// into the running domain, and unplugged again, reaches the handler at once as a MODIFIED domain event whose spec
// has (then lacks) the disk, and so does the virtio-mem device's new size once the guest plugged the memory,
// because the launcher forwards libvirt's device-added, device-removed and memory-device size-change callbacks as
// KubeVirt's does (pkg/virt-launcher/notify-client/client.go, StartDomainNotifier registers them and eventCallback
// sends the domain re-read by name). Nothing else the launcher does here sends an event: without the forwarding
// the handler would see the disk only at its next resync, and these waits would time out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import type { ReceivedEvent } from './testing/handler-standin.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';
import { killGuests, killTree, startLauncherInPrivateRoot, type LauncherProcess } from './testing/launcher-process.js';
import { SerialConsole } from './testing/serial-console.js';

const uid = 'u-hotplug-events';

/**
 * The demo guest's VMI, with a hotplug volume `hp` as virt-handler reports it once it mounted the file, and memory
 * that can grow from 256Mi at boot up to 512Mi (virtio-mem).
 */
function vmi(withHotplug: boolean, guestMemory = '256Mi'): Buffer {
  const doc = JSON.parse(
    demoGuestVmi(uid, {
      name: 'hpguest',
      disks: withHotplug ? [{ name: 'hp', disk: { bus: 'virtio' } }] : [],
      volumes: withHotplug
        ? [{ name: 'hp', persistentVolumeClaim: { claimName: 'hp-claim', hotpluggable: true } }]
        : [],
      terminationGracePeriodSeconds: 0,
    }).toString(),
  ) as { spec: { domain: Record<string, unknown> }; status?: object };
  doc.spec.domain.memory = { guest: guestMemory, maxGuest: '512Mi' };
  doc.spec.domain.resources = { requests: { memory: '256Mi' } };
  const volumeStatus: object[] = [{ name: 'containerdisk', target: 'vda', phase: 'Ready' }];
  if (withHotplug) volumeStatus.push({ name: 'hp', target: '', phase: 'Ready', hotplugVolume: { attachPodName: 'p' } });
  doc.status = { volumeStatus, memory: { guestAtBoot: '256Mi' } };
  return Buffer.from(JSON.stringify(doc));
}

interface DiskJson {
  Alias?: { Name: string; UserDefined?: boolean };
  Target: { Device: string };
}

/** The disks of the domain JSON an event carried (KubeVirt's api.Domain: Spec.Devices.Disks). */
function disksOf(event: ReceivedEvent): DiskJson[] {
  const spec = event.domain.Spec as { Devices?: { Disks?: DiskJson[] } };
  return spec.Devices?.Disks ?? [];
}

interface MemoryDeviceJson {
  Model: string;
  Target: { Requested?: { Value: number }; Current?: { Value: number } };
}

/** The virtio-mem device of the domain JSON an event carried (KubeVirt's api.Domain: Spec.Devices.Memory). */
function memoryOf(event: ReceivedEvent): MemoryDeviceJson | undefined {
  return (event.domain.Spec as { Devices?: { Memory?: MemoryDeviceJson } }).Devices?.Memory;
}

const hasHotplugDisk = (e: ReceivedEvent) => disksOf(e).some((d) => d.Alias?.Name === 'hp');

describe.skipIf(!haveDemoGuest)('hot-plug events reach the handler (issue 33)', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let serial: SerialConsole | undefined;
  const notify = new NotifyStandIn();

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-hpev-');
    await stageDemoGuest(root);
    await mkdir(join(root, 'run/kubevirt/hotplug-disks'), { recursive: true });
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    launcher = startLauncherInPrivateRoot(root, 'none', [
      '--name',
      'hpguest',
      '--namespace',
      'default',
      '--uid',
      uid,
      '--allow-emulation',
    ]);
    await launcher.waitForLog('Marked as ready', 90_000);
  }, 120_000);

  afterAll(async () => {
    serial?.close();
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('sends MODIFIED with the disk when plugged, without it once unplugged, and with the grown virtio-mem size', async () => {
    if (!launcher) throw new Error('launcher not started');
    const client = await connectLauncher(launcher.readySocket);
    const sync = async (doc: Buffer) => {
      const r = await client.call('syncVirtualMachine', request(doc), 120_000);
      expect(r, `${r.message}\n${launcher?.stderr.slice(-30).join('\n')}`).toEqual({ success: true, message: '' });
    };
    /** The first event received after this point that matches. */
    const nextEvent = (pred: (e: ReceivedEvent) => boolean) => {
      const from = notify.events.length;
      return (ready: Promise<unknown>) =>
        ready.then(() => notify.waitFor((e) => notify.events.indexOf(e) >= from && pred(e), 60_000));
    };
    try {
      await sync(vmi(false));
      serial = await SerialConsole.open(join(root, `run/kubevirt-private/${uid}/virt-serial0`));
      await serial.waitFor(/VLT-GUEST: ready/, 0, 180_000);
      await notify.waitFor((e) => e.domain.Status.Status === 'Running');
      expect(notify.events.some(hasHotplugDisk)).toBe(false);

      // Plugged: libvirt's device-added callback makes the launcher send the domain with the disk as vdb.
      const file = join(root, 'run/kubevirt/hotplug-disks/hp.img');
      await writeFile(file, '');
      await truncate(file, 8 * 1024 * 1024);
      let mark = serial.mark();
      const plugged = nextEvent(hasHotplugDisk);
      const added = await plugged(sync(vmi(true)));
      await serial.waitFor(/VLT-GUEST: disk vdb added/, mark);
      expect(added.eventType).toBe('MODIFIED');
      expect(added.domain.Status.Status).toBe('Running');
      const disk = disksOf(added).find((d) => d.Alias?.Name === 'hp');
      expect(disk?.Alias).toEqual({ Name: 'hp', UserDefined: true });
      expect(disk?.Target.Device).toBe('vdb');

      // Unplugged: the device-removed callback (after the guest released the disk) sends the domain without it.
      mark = serial.mark();
      const unplugged = nextEvent((e) => !hasHotplugDisk(e));
      const removed = await unplugged(sync(vmi(false)));
      await serial.waitFor(/VLT-GUEST: disk vdb removed/, mark);
      expect(removed.eventType).toBe('MODIFIED');
      expect(disksOf(removed).map((d) => d.Target.Device)).toContain('vda');

      // Memory 256Mi -> 384Mi attaches a virtio-mem device asking for 128Mi (a device-added callback), 384Mi -> 448Mi
      // only raises what it asks for. Once the guest plugged the extra 64Mi, libvirt's memory-device size-change
      // callback is the one thing that makes the launcher send the domain with the device's new current size.
      const growMemory = (guest: string) =>
        client
          .call('syncVirtualMachineMemory', request(vmi(false, guest)), 60_000)
          .then((r) => expect(r).toEqual({ success: true, message: '' }));
      const currentIs = (kiB: number) => (e: ReceivedEvent) => memoryOf(e)?.Target.Current?.Value === kiB;
      await nextEvent(currentIs(128 * 1024))(growMemory('384Mi'));
      mark = serial.mark();
      const sized = await nextEvent(currentIs(192 * 1024))(growMemory('448Mi'));
      await serial.waitFor(/VLT-GUEST: memory \d+/, mark);
      expect(sized.eventType).toBe('MODIFIED');
      expect(memoryOf(sized)?.Model).toBe('virtio-mem');
      expect(memoryOf(sized)?.Target.Requested?.Value).toBe(192 * 1024);
    } finally {
      client.close();
    }
  }, 600_000);
});
