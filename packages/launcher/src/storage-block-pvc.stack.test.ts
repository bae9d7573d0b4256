// A block-mode PVC through the whole launcher: the pod's /dev/<volume> is a block device node (here a loop
// device over a file, made with losetup, its node created inside the private root's own /dev). The domain must
// define with a block source at /dev/<volume> and start under QEMU TCG (chosen on purpose: there may be no
// KVM), and QEMU must really have opened the device: the guest's disk shows the loop device's size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { LauncherProcess, cliPath, killGuests, killTree, privateRootScript } from './testing/launcher-process.js';

function vmi(): Buffer {
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'guest', namespace: 'default', uid: 'u-block' },
    spec: {
      domain: {
        resources: { requests: { memory: '64Mi' } },
        devices: { disks: [{ name: 'blockpvc', disk: { bus: 'virtio' } }] },
      },
      volumes: [{ name: 'blockpvc', persistentVolumeClaim: { claimName: 'claim-block' } }],
      terminationGracePeriodSeconds: 0,
    },
    status: {
      volumeStatus: [
        {
          name: 'blockpvc',
          target: '',
          persistentVolumeClaimInfo: { capacity: { storage: '8Mi' }, volumeMode: 'Block' },
        },
      ],
    },
  };
  return Buffer.from(JSON.stringify(doc));
}

describe('a block-mode PVC (a loop device at /dev/<volume> in the pod)', () => {
  let root = '';
  let loop = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyStandIn | undefined;

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-block-');
    const backing = join(root, 'claim.raw');
    await writeFile(backing, '');
    await truncate(backing, 8 * 1024 * 1024);
    loop = execFileSync('losetup', ['--find', '--show', backing]).toString().trim();
    const { rdev } = await stat(loop);
    const major = Math.floor(rdev / 256);
    const minor = rdev % 256;
    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', 'u-block', '--allow-emulation'];
    // The node is made inside the root's private /dev (as kubelet makes it in a pod), then the launcher runs.
    const argv = [
      privateRootScript,
      'exec',
      root,
      '--kvm',
      'none',
      '--',
      'sh',
      '-c',
      `mknod /dev/blockpvc b ${major} ${minor} && exec "$0" "$@"`,
      process.execPath,
      cliPath,
      '--run-root',
      '/',
      ...args,
    ];
    const child = spawn(argv[0] ?? 'bash', argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
    launcher = new LauncherProcess(child, (p) => (p.startsWith('/var/run/') ? join(root, 'run', p.slice(9)) : p));
    await launcher.waitForLog('Marked as ready', 90_000);
  }, 120_000);

  afterAll(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.close();
    if (loop) execFileSync('losetup', ['-d', loop]);
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('defines a block source at /dev/<volume> and QEMU opens the device', async () => {
    if (!launcher) throw new Error('launcher not started');
    const client = await connectLauncher(launcher.readySocket);
    const result = await client.call('syncVirtualMachine', request(vmi()), 120_000);
    client.close();
    expect(result.success, `${result.message}\n${launcher.stderr.join('\n')}`).toBe(true);
    await launcher.waitForLog('Domain started.', 60_000);
    const uri = `qemu+unix:///system?socket=${join(root, 'run/libvirt/virtqemud-sock')}`;
    const xml = execFileSync('virsh', ['-c', uri, 'dumpxml', 'default_guest']).toString('utf8');
    expect(xml).toMatch(/<disk type='block' device='disk'[^>]*>[\s\S]*?<source dev='\/dev\/blockpvc'/);
    // A loop device takes O_DIRECT: cache none, and native AIO as for every block device.
    expect(xml).toMatch(/<driver name='qemu' type='raw' cache='none' error_policy='stop' io='native'/);
    // libvirt asks the running QEMU for the disk's capacity: the loop device's 8 MiB.
    const info = execFileSync('virsh', ['-c', uri, 'domblkinfo', 'default_guest', 'vda']).toString('utf8');
    expect(info).toMatch(/Capacity:\s+8388608/);
  }, 180_000);
});
