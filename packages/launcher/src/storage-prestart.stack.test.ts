// Issue 17 "Storage" through the whole launcher: one VMI with a cloud-init NoCloud volume fed by secrets and
// access credentials, a service account, a sysprep drive, a filesystem PVC without its disk.img, an ephemeral
// claim, a downwardMetrics disk and ignition data. SyncVirtualMachine runs in a private root with its own
// libvirtd 9.0; the domain must define and start (QEMU TCG, chosen on purpose: there may be no KVM), and every
// file the domain names must exist where it names it, with the content KubeVirt would give it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadEphemeralDisk } from './adapters/ephemeral-disk.js';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';

const FIRMWARE_UUID = '5d307ca9-b3ef-428c-8861-06e72d69f223';
const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHkeyfortests test@vlt';

function vmi(): Buffer {
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: {
      name: 'guest',
      namespace: 'default',
      uid: 'u-storage',
      annotations: { 'kubevirt.io/ignitiondata': '{"ignition":{"version":"3.2.0"}}' },
    },
    spec: {
      domain: {
        firmware: { uuid: FIRMWARE_UUID },
        resources: { requests: { memory: '64Mi' } },
        devices: {
          disks: [
            { name: 'fspvc', disk: { bus: 'virtio' } },
            { name: 'ephpvc', disk: { bus: 'virtio' } },
            { name: 'cloudinit', disk: { bus: 'virtio' } },
            { name: 'sa', disk: { bus: 'virtio' } },
            { name: 'sysprep', cdrom: { bus: 'sata' } },
            { name: 'metrics', disk: { bus: 'virtio' } },
          ],
        },
      },
      accessCredentials: [
        { sshPublicKey: { source: { secret: { secretName: 'mykeys' } }, propagationMethod: { noCloud: {} } } },
      ],
      volumes: [
        { name: 'fspvc', persistentVolumeClaim: { claimName: 'claim-a' } },
        { name: 'ephpvc', ephemeral: { persistentVolumeClaim: { claimName: 'claim-b' } } },
        {
          name: 'cloudinit',
          cloudInitNoCloud: { secretRef: { name: 'ud' }, networkDataSecretRef: { name: 'nd' } },
        },
        { name: 'sa', serviceAccount: { serviceAccountName: 'default' } },
        { name: 'sysprep', sysprep: { configMap: { name: 'unattend' } } },
        { name: 'metrics', downwardMetrics: {} },
      ],
      terminationGracePeriodSeconds: 0,
    },
    status: {
      volumeStatus: [
        {
          name: 'fspvc',
          target: '',
          persistentVolumeClaimInfo: {
            capacity: { storage: '64Mi' },
            requests: { storage: '32Mi' },
            volumeMode: 'Filesystem',
            accessModes: ['ReadWriteOnce'],
          },
        },
      ],
    },
  };
  return Buffer.from(JSON.stringify(doc));
}

async function put(path: string, content: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
}

function isoFile(iso: string, file: string): string {
  // Rock Ridge names, as a Linux guest mounting the ISO sees them.
  return execFileSync('isoinfo', ['-R', '-i', iso, '-x', file]).toString('utf8');
}

describe('preStartHook storage: every file the domain names is made, as KubeVirt makes it', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyStandIn | undefined;
  let xml = '';
  let result: { success: boolean; message: string } = { success: false, message: 'not run' };
  const host = (p: string) => launcher?.hostPath(p) ?? p;

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-storage-');
    const priv = join(root, 'run/kubevirt-private');
    await put(join(priv, 'secret/cloudinit/userdata'), '#cloud-config\npassword: from-secret\n');
    await put(join(priv, 'secret/cloudinit/networkdata'), 'version: 2\nethernets: {}\n');
    await put(join(priv, 'secret/mykeys-access-cred/key1'), `${SSH_KEY}\n`);
    await put(join(root, 'run/secrets/kubernetes.io/serviceaccount/token'), 'sa-token-value');
    await put(join(root, 'run/secrets/kubernetes.io/serviceaccount/namespace'), 'default');
    await put(join(priv, 'sysprep/sysprep/autounattend.xml'), '<unattend/>');
    // The claims' mount points (kubelet mounts them; an empty one gets disk.img made in it).
    await mkdir(join(priv, 'vmi-disks/fspvc'), { recursive: true });
    await mkdir(join(priv, 'vmi-disks/ephpvc'), { recursive: true });
    execFileSync('qemu-img', ['create', '-q', '-f', 'raw', join(priv, 'vmi-disks/ephpvc/disk.img'), '16M']);

    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', 'u-storage', '--allow-emulation'];
    launcher = startLauncherInPrivateRoot(root, 'none', args);
    await launcher.waitForLog('Marked as ready', 90_000);
    const client = await connectLauncher(launcher.readySocket);
    result = await client.call('syncVirtualMachine', request(vmi()), 120_000);
    client.close();
    if (result.success) {
      const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
      xml = execFileSync('virsh', ['-c', uri, 'dumpxml', 'default_guest']).toString('utf8');
    }
  }, 240_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('defines and starts the domain; every disk source and the ignition file exist where the domain names them', async () => {
    expect(result.success, `${result.message}\n${launcher?.stderr.join('\n')}`).toBe(true);
    await launcher?.waitForLog('Domain started.', 60_000);
    const sources = [...xml.matchAll(/<source (?:file|dev)='([^']+)'/g)].map((m) => m[1] ?? '');
    const ignition = /name=opt\/com\.coreos\/config,file=([^']+)'/.exec(xml)?.[1];
    expect(ignition).toBe('/var/run/kubevirt-ephemeral-disks/ignition-data/default/guest/data.ign');
    for (const path of [...sources, ignition ?? '']) {
      expect((await stat(host(path))).isFile(), path).toBe(true);
    }
    expect(sources).toEqual(
      expect.arrayContaining([
        '/var/run/kubevirt-private/vmi-disks/fspvc/disk.img',
        '/var/run/kubevirt-ephemeral-disks/disk-data/ephpvc/disk.qcow2',
        '/var/run/kubevirt-private/vmi-disks/ephpvc/disk.img',
        '/var/run/kubevirt-private/service-account-disk/service-account.iso',
        '/var/run/kubevirt-private/sysprep-disks/sysprep.iso',
        '/var/run/kubevirt-private/downwardapi-disks/vhostmd0',
      ]),
    );
    // Every disk got a cache mode chosen from its file: the private root lives on one filesystem, so one mode.
    const caches = new Set([...xml.matchAll(/<driver name='qemu'[^>]*cache='([^']+)'/g)].map((m) => m[1]));
    expect(caches.size).toBe(1);
    expect([...xml.matchAll(/<disk /g)]).toHaveLength([...xml.matchAll(/<driver name='qemu'[^>]*cache=/g)].length);
    expect(await readFile(host(ignition ?? ''), 'utf8')).toBe('{"ignition":{"version":"3.2.0"}}');
  });

  it('cloud-init: user and network data from secret/<volume>/, instance-id = firmware UUID, SSH keys', async () => {
    const iso = host('/var/run/kubevirt-ephemeral-disks/cloud-init-data/default/guest/noCloud.iso');
    expect(isoFile(iso, '/user-data')).toBe('#cloud-config\npassword: from-secret\n');
    expect(isoFile(iso, '/network-config')).toBe('version: 2\nethernets: {}\n');
    const meta = JSON.parse(isoFile(iso, '/meta-data')) as Record<string, unknown>;
    expect(meta['instance-id']).toBe(FIRMWARE_UUID);
    expect(meta['public-keys']).toEqual({ '0': SSH_KEY });
  });

  it('service account and sysprep ISOs hold their mounted sources', async () => {
    const sa = host('/var/run/kubevirt-private/service-account-disk/service-account.iso');
    expect(isoFile(sa, '/token')).toBe('sa-token-value');
    const sysprep = host('/var/run/kubevirt-private/sysprep-disks/sysprep.iso');
    expect(isoFile(sysprep, '/autounattend.xml')).toBe('<unattend/>');
    expect(execFileSync('isoinfo', ['-d', '-i', sysprep]).toString()).toContain('Volume id: unattendCD');
  });

  it('the filesystem PVC disk.img is sparse raw of the capacity; the ephemeral overlay is qcow2 over the claim', async () => {
    const img = host('/var/run/kubevirt-private/vmi-disks/fspvc/disk.img');
    expect((await stat(img)).size).toBe(64 * 1024 * 1024);
    const overlay = JSON.parse(
      execFileSync('qemu-img', [
        'info',
        '-U',
        '--output=json',
        host('/var/run/kubevirt-ephemeral-disks/disk-data/ephpvc/disk.qcow2'),
      ]).toString(),
    ) as Record<string, unknown>;
    expect(overlay['format']).toBe('qcow2');
    expect(overlay['backing-filename']).toBe('/var/run/kubevirt-private/vmi-disks/ephpvc/disk.img');
    expect(overlay['backing-filename-format']).toBe('raw');
  });

  it('the vhostmd0 disk verifies and its metrics are rewritten while the launcher runs', async () => {
    const disk = host('/var/run/kubevirt-private/downwardapi-disks/vhostmd0');
    const { readMetricsDisk } = await loadEphemeralDisk();
    const first = await readMetricsDisk(disk);
    expect(first.body).toMatch(/<name>HostName<\/name>/);
    expect(first.body).toMatch(/<metric type="uint64" context="host" unit="KiB">\s*<name>FreePhysicalMemory<\/name>/);
    const time = (body: string) => /<name>Time<\/name>\s*<value>(\d+)<\/value>/.exec(body)?.[1];
    const before = time(first.body);
    let after = before;
    for (let i = 0; i < 60 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const read = await readMetricsDisk(disk);
      if (!read.busy) after = time(read.body);
    }
    expect(after).not.toBe(before);
  }, 60_000);
});
