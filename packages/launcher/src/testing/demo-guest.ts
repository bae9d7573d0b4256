// Test support: the demo guest (tools/demo-guest, built into .cache/demo-guest by `npm run build`) as the
// real-stack tests boot it: a kernel-boot VMI with a container disk, staged where KubeVirt's containerDisk and
// kernel-boot containers would leave the files in the pod.
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const demoGuestDir = resolve(fileURLToPath(import.meta.url), '../../../../../.cache/demo-guest');

/** False only where the demo guest was never built; CI fails on the tests this skips (tools/sum-test-results.mjs). */
export const haveDemoGuest =
  existsSync(join(demoGuestDir, 'vmlinuz')) && existsSync(join(demoGuestDir, 'initramfs.gz'));

export interface DemoGuestVmiOptions {
  name?: string;
  /** Disks after the container disk (volume names must match `volumes`). */
  disks?: object[];
  volumes?: object[];
  /** Without a container disk the guest boots from its initramfs alone. */
  containerDisk?: boolean;
  interfaces?: object[];
  networks?: object[];
  terminationGracePeriodSeconds?: number;
}

/** The VMI JSON of the demo guest, kernel-booted under whichever hypervisor the test's root allows. */
export function demoGuestVmi(uid: string, o: DemoGuestVmiOptions = {}): Buffer {
  const withDisk = o.containerDisk ?? true;
  const disks = [...(withDisk ? [{ name: 'containerdisk', disk: { bus: 'virtio' } }] : []), ...(o.disks ?? [])];
  const volumes = [
    ...(withDisk ? [{ name: 'containerdisk', containerDisk: { image: 'demo' } }] : []),
    ...(o.volumes ?? []),
  ];
  const devices: Record<string, unknown> = {};
  if (disks.length > 0) devices.disks = disks;
  if (o.interfaces) devices.interfaces = o.interfaces;
  const spec: Record<string, unknown> = {
    domain: {
      resources: { requests: { memory: '128Mi' } },
      firmware: {
        kernelBoot: {
          kernelArgs: 'console=ttyS0 quiet panic=-1 rdinit=/init',
          container: { image: 'demo', kernelPath: '/boot/vmlinuz', initrdPath: '/boot/initramfs.gz' },
        },
      },
      devices,
    },
  };
  if (volumes.length > 0) spec.volumes = volumes;
  if (o.networks) spec.networks = o.networks;
  if (o.terminationGracePeriodSeconds !== undefined)
    spec.terminationGracePeriodSeconds = o.terminationGracePeriodSeconds;
  const metadata = { name: o.name ?? 'guest', namespace: 'default', uid };
  return Buffer.from(JSON.stringify({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', metadata, spec }));
}

/** Puts the kernel, initramfs and (unless told not to) container disk where the pod's containers would. */
export async function stageDemoGuest(root: string, o: { containerDisk?: boolean } = {}): Promise<void> {
  const disks = join(root, 'run/kubevirt/container-disks');
  await mkdir(join(disks, 'kernel-boot'), { recursive: true });
  await copyFile(join(demoGuestDir, 'vmlinuz'), join(disks, 'kernel-boot/vmlinuz'));
  await copyFile(join(demoGuestDir, 'initramfs.gz'), join(disks, 'kernel-boot/initramfs.gz'));
  if (o.containerDisk ?? true) await copyFile(join(demoGuestDir, 'containerdisk.img'), join(disks, 'disk_0.img'));
}
