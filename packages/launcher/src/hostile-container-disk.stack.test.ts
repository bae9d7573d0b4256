// Issue 23 item 1 through the whole launcher: a container disk whose qcow2 keeps its data in an external file
// (here a "secret" of the pod) must be refused by SyncVirtualMachine before any domain is defined, so QEMU never
// opens that file as the guest's disk. Real launcher, own libvirtd, private root; the image is made by qemu-img.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { killGuests, killTree, startLauncherInPrivateRoot } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';

function containerDiskVmi(uid: string): Buffer {
  const vmi = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'guest', namespace: 'default', uid },
    spec: {
      domain: {
        resources: { requests: { memory: '64Mi' } },
        devices: { disks: [{ name: 'containerdisk', disk: { bus: 'virtio' } }] },
      },
      volumes: [{ name: 'containerdisk', containerDisk: { image: 'hostile' } }],
    },
  };
  return Buffer.from(JSON.stringify(vmi));
}

describe('a container disk that points outside itself', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;
  let notify: NotifyStandIn | undefined;

  afterEach(async () => {
    if (launcher) await killTree(launcher);
    if (root) await killGuests(root);
    notify?.close();
    if (root) await rm(root, { recursive: true, force: true });
  }, 30_000);

  it('is refused by SyncVirtualMachine, naming the data file; nothing is defined and the file is untouched', async () => {
    root = await mkdtemp('/tmp/vlt-launcher-hostile-');
    // The same path inside and outside the private root (/tmp is not remapped).
    const secret = join(root, 'secret');
    const disks = join(root, 'run/kubevirt/container-disks');
    await mkdir(disks, { recursive: true });
    const image = join(disks, 'disk_0.img');
    execFileSync('qemu-img', [
      'create',
      '-q',
      '-f',
      'qcow2',
      '-o',
      `data_file=${secret},data_file_raw=on`,
      image,
      '1M',
    ]);
    await writeFile(secret, 'pod secret\n'.repeat(100));
    const before = await stat(secret);

    notify = new NotifyStandIn();
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', 'u-hostile', '--allow-emulation'];
    launcher = startLauncherInPrivateRoot(root, 'none', args);
    await launcher.waitForLog('Marked as ready', 90_000);
    const client = await connectLauncher(launcher.readySocket);
    const result = await client.call('syncVirtualMachine', request(containerDiskVmi('u-hostile')), 90_000);
    client.close();

    expect(result.success, result.message).toBe(false);
    expect(result.message).toContain(`external data file "${secret}"`);
    expect(launcher.lines.some((line) => line.msg === 'Domain defined.')).toBe(false);
    expect(await readFile(secret, 'utf8')).toBe('pod secret\n'.repeat(100));
    expect((await stat(secret)).mtimeMs).toBe(before.mtimeMs);
  }, 180_000);
});
