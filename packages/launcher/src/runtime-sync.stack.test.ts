// Issue 20 end to end on ONE booted demo guest (QEMU TCG, chosen on purpose: there may be no KVM): a re-sync
// of the running domain hot-plugs a file-backed disk, grows it, unplugs it; SyncVirtualMachineCPUs takes the
// guest from 1 to 2 vCPUs; SyncVirtualMachineMemory grows it through virtio-mem; a NIC on a secondary network
// is plugged into the tap the pod side made, carries traffic, follows `state: down`/`up` and is unplugged.
// The guest's watch-changes script reports each change on the serial console. Repeated syncs change nothing,
// a failed attach leaves the domain as it was, and the boot disk's write layer is never touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, open, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { secondaryTapName } from './domain/sync/runtime/context-facts.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';
import { killGuests, killTree, startLauncherInPrivateRoot, type LauncherProcess } from './testing/launcher-process.js';
import { SerialConsole } from './testing/serial-console.js';

const ns = `vlt-launcher-${randomBytes(3).toString('hex')}`;
const uid = 'u-runtime';
const MAC = '02:00:00:12:34:56';
const inNs = (...args: string[]) => execFileSync('ip', ['netns', 'exec', ns, ...args], { stdio: 'pipe' }).toString();

interface Shape {
  sockets?: number;
  guest?: string;
  hotplug?: { phase: string } | undefined;
  nic?: 'up' | 'down' | 'absent' | undefined;
}

/** The VMI as virt-handler would send it at each step (volumeStatus as it writes it for a hotplug volume). */
function vmi(s: Shape = {}): Buffer {
  const disks: object[] = [{ name: 'containerdisk', disk: { bus: 'virtio' } }];
  const volumes: object[] = [{ name: 'containerdisk', containerDisk: { image: 'demo' } }];
  const volumeStatus: object[] = [{ name: 'containerdisk', target: 'vda', phase: 'Ready' }];
  if (s.hotplug) {
    disks.push({ name: 'hp', disk: { bus: 'virtio' } });
    volumes.push({ name: 'hp', persistentVolumeClaim: { claimName: 'hp-claim', hotpluggable: true } });
    volumeStatus.push({ name: 'hp', target: '', phase: s.hotplug.phase, hotplugVolume: { attachPodName: 'hp-pod' } });
  }
  const interfaces: object[] = [];
  const networks: object[] = [];
  if (s.nic) {
    interfaces.push({ name: 'blue', bridge: {}, macAddress: MAC, ...(s.nic === 'up' ? {} : { state: s.nic }) });
    networks.push({ name: 'blue', multus: { networkName: 'blue-net' } });
  }
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'rtguest', namespace: 'default', uid },
    spec: {
      domain: {
        cpu: { sockets: s.sockets ?? 1, cores: 1, threads: 1, maxSockets: 2 },
        memory: { guest: s.guest ?? '256Mi', maxGuest: '512Mi' },
        resources: { requests: { memory: '256Mi' } },
        firmware: {
          kernelBoot: {
            kernelArgs: 'console=ttyS0 quiet panic=-1 rdinit=/init',
            container: { image: 'demo', kernelPath: '/boot/vmlinuz', initrdPath: '/boot/initramfs.gz' },
          },
        },
        devices: { autoattachPodInterface: false, disks, interfaces },
      },
      networks,
      volumes,
      terminationGracePeriodSeconds: 0,
    },
    status: { volumeStatus, memory: { guestAtBoot: '256Mi' } },
  };
  return Buffer.from(JSON.stringify(doc));
}

/** Identity and header bytes of a file: equal before and after means nobody rewrote it. */
async function fingerprint(path: string): Promise<string> {
  const st = await stat(path);
  const fh = await open(path, 'r');
  const head = Buffer.alloc(64 * 1024);
  await fh.read(head, 0, head.length, 0);
  await fh.close();
  return `${st.ino}:${st.mtimeMs}:${st.size}:${createHash('sha256').update(head).digest('hex')}`;
}

describe.skipIf(!haveDemoGuest)('runtime sync of a running guest (issue 20)', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let serial: SerialConsole | undefined;
  const notify = new NotifyStandIn();
  const tap = secondaryTapName('blue');

  beforeAll(async () => {
    execFileSync('ip', ['netns', 'add', ns]);
    inNs('ip', 'link', 'set', 'lo', 'up');
    root = await mkdtemp('/tmp/vlt-launcher-runtime-');
    await stageDemoGuest(root);
    await mkdir(join(root, 'run/kubevirt/hotplug-disks'), { recursive: true });
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    launcher = startLauncherInPrivateRoot(
      root,
      'none',
      ['--name', 'rtguest', '--namespace', 'default', '--uid', uid, '--allow-emulation'],
      ['ip', 'netns', 'exec', ns],
    );
    await launcher.waitForLog('Marked as ready', 90_000);
  }, 120_000);

  afterAll(async () => {
    serial?.close();
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify.close();
    execFileSync('ip', ['netns', 'del', ns]);
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('hot-plugs, resizes and unplugs a disk and a NIC, adds a vCPU and memory; repeats change nothing', async () => {
    if (!launcher) throw new Error('launcher not started');
    const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
    // The live XML, without the guest agent channel's state (the agent in the guest connects when it likes).
    const liveXml = () =>
      execFileSync('virsh', ['-c', uri, 'dumpxml', 'default_rtguest'])
        .toString('utf8')
        .replace(/ state='(dis)?connected'/g, '');
    const client = await connectLauncher(launcher.readySocket);
    const sync = (doc: Buffer) => client.call('syncVirtualMachine', request(doc), 120_000);
    const expectOk = (r: { success: boolean; message: string }) =>
      expect(r, `${r.message}\n${launcher?.stderr.slice(-30).join('\n')}`).toEqual({ success: true, message: '' });
    try {
      // Boot: 1 vCPU of 2 slots, no hotplug disk, no NIC.
      expectOk(await sync(vmi()));
      serial = await SerialConsole.open(join(root, `run/kubevirt-private/${uid}/virt-serial0`));
      await serial.waitFor(/VLT-GUEST: ready/, 0, 180_000);
      const layer = join(root, 'run/kubevirt-ephemeral-disks/disk-data/containerdisk/disk.qcow2');
      const layerBefore = await fingerprint(layer);

      // A hotplug volume whose file is not there: a clear error, and the domain is as it was.
      const xmlBefore = liveXml();
      const failed = await sync(vmi({ hotplug: { phase: 'Ready' } }));
      expect(failed.success).toBe(false);
      expect(failed.message).toMatch(/spec\.volumes\[hp\].*hotplug-disks\/hp\.img/);
      expect(liveXml()).toBe(xmlBefore);

      // The file appears (virt-handler mounted it): attached as vdb with its ua- alias.
      const file = join(root, 'run/kubevirt/hotplug-disks/hp.img');
      await writeFile(file, '');
      await truncate(file, 8 * 1024 * 1024);
      let mark = serial.mark();
      expectOk(await sync(vmi({ hotplug: { phase: 'Ready' } })));
      expect(await serial.waitFor(/VLT-GUEST: disk vd\w+ added/, mark)).toBe('VLT-GUEST: disk vdb added 8388608');
      // GetDomain (KubeVirt's api.Domain JSON) lists the disk with its alias: ua-hp is Name hp, UserDefined.
      const domain = JSON.parse((await client.call('getDomain', {})).domain) as {
        Spec: {
          Devices: { Disks: Array<{ Alias?: { Name: string; UserDefined?: boolean }; Target: { Device: string } }> };
        };
      };
      const hp = domain.Spec.Devices.Disks.find((d) => d.Alias?.Name === 'hp');
      expect(hp?.Alias).toEqual({ Name: 'hp', UserDefined: true });
      expect(hp?.Target.Device).toBe('vdb');

      // Repeated syncs change nothing.
      const settled = liveXml();
      expectOk(await sync(vmi({ hotplug: { phase: 'Ready' } })));
      expectOk(await sync(vmi({ hotplug: { phase: 'Ready' } })));
      expect(liveXml()).toBe(settled);

      // The volume grew: resized online.
      await truncate(file, 16 * 1024 * 1024);
      mark = serial.mark();
      expectOk(await sync(vmi({ hotplug: { phase: 'Ready' } })));
      expect(await serial.waitFor(/VLT-GUEST: disk vdb resized/, mark)).toBe('VLT-GUEST: disk vdb resized 16777216');

      // Unplugged: detached once the guest let go.
      mark = serial.mark();
      expectOk(await sync(vmi()));
      await serial.waitFor(/VLT-GUEST: disk vdb removed/, mark);
      expect(liveXml()).not.toContain('ua-hp');

      // vCPUs 1 -> 2, onlined by the guest.
      mark = serial.mark();
      expectOk(await client.call('syncVirtualMachineCpUs', request(vmi({ sockets: 2 })), 60_000));
      await serial.waitFor(/VLT-GUEST: cpus online 2/, mark);
      const vcpus = liveXml();
      expectOk(await client.call('syncVirtualMachineCpUs', request(vmi({ sockets: 2 })), 60_000));
      expect(liveXml()).toBe(vcpus);

      // Memory 256Mi -> 384Mi through virtio-mem, onlined by the guest.
      const memBefore = Number(/VLT-GUEST: memory (\d+)/.exec(serial.text)?.[1] ?? 0);
      mark = serial.mark();
      expectOk(await client.call('syncVirtualMachineMemory', request(vmi({ sockets: 2, guest: '384Mi' })), 60_000));
      const memLine = await serial.waitFor(/VLT-GUEST: memory \d+/, mark);
      expect(Number(memLine.split(' ').pop())).toBeGreaterThan(memBefore);
      expect(liveXml()).toMatch(/<memory model='virtio-mem'>/);

      // A NIC on a secondary network: the pod side makes its tap, the sync plugs the guest into it.
      inNs('ip', 'tuntap', 'add', tap, 'mode', 'tap');
      inNs('ip', 'link', 'set', tap, 'up');
      const rxBefore = Number(inNs('cat', `/sys/class/net/${tap}/statistics/rx_packets`));
      mark = serial.mark();
      const withNic = (nic: Shape['nic']) => vmi({ sockets: 2, guest: '384Mi', nic });
      expectOk(await sync(withNic('up')));
      const added = await serial.waitFor(/VLT-GUEST: nic \w+ added/, mark);
      expect(added).toMatch(new RegExp(`VLT-GUEST: nic eth\\d+ added ${MAC}`));
      const dev = added.split(' ')[2] ?? '';
      expect(liveXml()).toMatch(new RegExp(`<target dev='${tap}'`));
      // Traffic from the guest reaches the pod side (the guest's IPv6 neighbour discovery once its NIC is up).
      for (let i = 0; i < 100; i++) {
        if (Number(inNs('cat', `/sys/class/net/${tap}/statistics/rx_packets`)) > rxBefore) break;
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(Number(inNs('cat', `/sys/class/net/${tap}/statistics/rx_packets`))).toBeGreaterThan(rxBefore);

      mark = serial.mark();
      expectOk(await sync(withNic('down')));
      await serial.waitFor(new RegExp(`VLT-GUEST: nic ${dev} carrier 0`), mark);
      mark = serial.mark();
      expectOk(await sync(withNic('up')));
      await serial.waitFor(new RegExp(`VLT-GUEST: nic ${dev} carrier 1`), mark);
      const nicXml = liveXml();
      expectOk(await sync(withNic('up')));
      expect(liveXml()).toBe(nicXml);

      mark = serial.mark();
      expectOk(await sync(withNic('absent')));
      await serial.waitFor(new RegExp(`VLT-GUEST: nic ${dev} removed`), mark);
      expect(liveXml()).not.toContain('ua-blue');

      // The boot disk's write layer was never rewritten.
      expect(await fingerprint(layer)).toBe(layerBefore);
    } finally {
      client.close();
    }
  }, 600_000);
});
