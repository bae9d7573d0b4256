// Issue 17, device tags through the whole launcher: a VMI with a cloud-init config drive, a tagged NIC on a
// secondary network (its tap made in a network namespace this test creates, as the pod side makes it) and a
// tagged disk is synced in a private root with its own libvirtd 9.0 (no /dev/kvm, emulation allowed). The
// config drive, read back out of the ISO, must list the NIC with the PCI address and MAC the defined domain
// has, and nothing for the disk (KubeVirt lists no disk either). A second launcher defines a VMI with a tagged
// host device from a device plugin's variable: this host has no such device, so libvirt refuses only at start;
// by then the drive lists it at its guest address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { secondaryTapName } from '@virt-launcher/shared';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, startLauncherInPrivateRoot, type LauncherProcess } from './testing/launcher-process.js';

const MAC = '02:00:00:17:17:17';
const USER_DATA = '#cloud-config\n';

function vmi(name: string, devices: object, networks: object[] = []): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name, namespace: 'default', uid: `u-${name}` },
      spec: {
        domain: {
          firmware: { uuid: '17171717-1717-4717-8717-171717171717' },
          resources: { requests: { memory: '64Mi' } },
          devices: {
            autoattachPodInterface: false,
            disks: [
              { name: 'cfg', disk: { bus: 'virtio' } },
              { name: 'scratch', disk: { bus: 'virtio' }, tag: 'data' },
            ],
            ...devices,
          },
        },
        networks,
        volumes: [
          { name: 'cfg', cloudInitConfigDrive: { userData: USER_DATA } },
          { name: 'scratch', emptyDisk: { capacity: '16Mi' } },
        ],
        terminationGracePeriodSeconds: 0,
      },
    }),
  );
}

interface Synced {
  reply: { success: boolean; message: string };
  /** The domain as libvirt holds it after the sync, or why there is none. */
  xml: string;
  /** openstack/latest/meta_data.json out of the config drive's ISO. */
  meta: Record<string, unknown>;
}

/** Starts a launcher for `name` in a fresh private root, syncs the VMI once, reads the domain and the drive. */
async function syncInPrivateRoot(
  name: string,
  doc: Buffer,
  prefix: string[],
  track: { roots: string[]; launchers: LauncherProcess[]; notifies: NotifyStandIn[] },
): Promise<Synced> {
  const root = await mkdtemp(`/tmp/vlt-launcher-cfgdrive-`);
  track.roots.push(root);
  const notify = new NotifyStandIn();
  track.notifies.push(notify);
  await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
  const args = ['--name', name, '--namespace', 'default', '--uid', `u-${name}`, '--allow-emulation'];
  const launcher = startLauncherInPrivateRoot(root, 'none', args, prefix);
  track.launchers.push(launcher);
  await launcher.waitForLog('Marked as ready', 90_000);
  const client = await connectLauncher(launcher.readySocket);
  const reply = await client.call('syncVirtualMachine', request(doc), 120_000);
  client.close();
  const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
  let xml: string;
  try {
    xml = execFileSync('virsh', ['-c', uri, 'dumpxml', '--inactive', `default_${name}`], { stdio: 'pipe' }).toString();
  } catch (err) {
    xml = `no domain: ${String(err)}\n${launcher.stderr.slice(-20).join('\n')}`;
  }
  const iso = launcher.hostPath(`/var/run/kubevirt-ephemeral-disks/cloud-init-data/default/${name}/configdrive.iso`);
  const text = execFileSync('isoinfo', ['-R', '-i', iso, '-x', '/openstack/latest/meta_data.json']).toString('utf8');
  return { reply, xml, meta: JSON.parse(text) as Record<string, unknown> };
}

/** The guest PCI address of the device whose alias is `alias`, as sysfs in the guest names it. */
function guestAddressOf(xml: string, element: string, alias: string): string {
  const device = new RegExp(
    `<${element}\\b(?:(?!</${element}>)[\\s\\S])*?<alias name='${alias}'/>[\\s\\S]*?</${element}>`,
  ).exec(xml)?.[0];
  const address = device ? [...device.matchAll(/<address type='pci'[^>]*\/>/g)].at(-1)?.[0] : undefined;
  const attr = (n: string) => new RegExp(`${n}='0x([0-9a-f]+)'`).exec(address ?? '')?.[1] ?? '?';
  return `${attr('domain')}:${attr('bus')}:${attr('slot')}.${attr('function')}`;
}

describe('config drive device metadata from the defined domain (issue 17)', () => {
  const ns = `vlt-launcher-${randomBytes(3).toString('hex')}`;
  const track = { roots: [] as string[], launchers: [] as LauncherProcess[], notifies: [] as NotifyStandIn[] };
  let nic: Synced | undefined;

  beforeAll(async () => {
    execFileSync('ip', ['netns', 'add', ns]);
    const inNs = (...args: string[]) => execFileSync('ip', ['netns', 'exec', ns, ...args], { stdio: 'pipe' });
    inNs('ip', 'link', 'set', 'lo', 'up');
    inNs('ip', 'tuntap', 'add', secondaryTapName('blue'), 'mode', 'tap');
    inNs('ip', 'link', 'set', secondaryTapName('blue'), 'up');
    const devices = { interfaces: [{ name: 'blue', bridge: {}, macAddress: MAC, tag: 'uplink' }] };
    const networks = [{ name: 'blue', multus: { networkName: 'blue-net' } }];
    nic = await syncInPrivateRoot('tagged', vmi('tagged', devices, networks), ['ip', 'netns', 'exec', ns], track);
  }, 240_000);

  afterAll(async () => {
    for (const launcher of track.launchers) await killTree(launcher);
    for (const root of track.roots) await killGuests(root);
    for (const notify of track.notifies) notify.close();
    execFileSync('ip', ['netns', 'del', ns]);
    for (const root of track.roots) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('a tagged NIC is listed at the PCI address and with the MAC of the defined domain; a disk tag is not', () => {
    if (!nic) throw new Error('not synced');
    expect(nic.reply, nic.xml).toEqual({ success: true, message: '' });
    const address = guestAddressOf(nic.xml, 'interface', 'ua-blue');
    expect(address).toMatch(/^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/);
    expect(nic.meta['devices']).toEqual([{ type: 'nic', bus: 'pci', address, mac: MAC, tags: ['uplink'] }]);
    // The rest of the drive is what the first write put there.
    expect(nic.meta['uuid']).toBe('17171717-1717-4717-8717-171717171717');
    expect(nic.meta['instance_id']).toBe('tagged.default');
  });

  it('a tagged host device from a device plugin is listed at its guest PCI address', async () => {
    const devices = { hostDevices: [{ name: 'qat', deviceName: 'intel.com/qat', tag: 'crypto' }] };
    const synced = await syncInPrivateRoot(
      'hostdev',
      vmi('hostdev', devices),
      ['env', 'PCI_RESOURCE_INTEL_COM_QAT=0000:3d:01.0'],
      track,
    );
    // No VFIO on this host: libvirt defines the domain and refuses at start, after the drive was written.
    expect(synced.reply.success).toBe(false);
    expect(synced.reply.message).toMatch(/passthrough of host PCI devices/);
    const address = guestAddressOf(synced.xml, 'hostdev', 'ua-hostdevice-qat');
    expect(address).toMatch(/^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/);
    expect(synced.meta['devices']).toEqual([{ type: 'hostdev', bus: 'pci', address, tags: ['crypto'] }]);
  }, 240_000);
});
