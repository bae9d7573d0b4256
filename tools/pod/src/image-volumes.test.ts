// The pod's image volumes as KubeVirt v1.9's virt-controller renders them with the ImageVolume gate:
// containerDisk volume <index> at /var/run/kubevirt-image-volume/disk_<index>, the kernel-boot image at
// /var/run/kubevirt-kernel-boot (pkg/virt-controller/services/rendervolumes.go addContainerDiskVolumeMount,
// addKernelBootVolumeMount; pkg/util/util.go), each image holding its disk in /disk/ or at the volume's `path`
// (pkg/virt-launcher/virtwrap/manager.go getDiskTargetPathFromImageVolumeView), and no container-disks dir.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { parseRunArgs } from './args.js';
import { mountImageVolumes, readImageVolumeMounts } from './image-volumes.js';
import { asImageVolumes, LayoutError, placeContainerDisks, podLayout } from './layout.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-imagevol-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const vmi = (volumes: object[], kernelBoot?: object): VirtualMachineInstance =>
  ({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'v', namespace: 'ns', uid: 'u' },
    spec: { domain: { devices: {}, ...(kernelBoot ? { firmware: { kernelBoot } } : {}) }, volumes },
  }) as unknown as VirtualMachineInstance;

function file(name: string, content: string): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, content);
  return p;
}

describe('--image-volumes', () => {
  it('marks the container disk files as image volumes', () => {
    const on = parseRunArgs(['run', 'v.yaml', '--image-volumes', '--container-disk', 'root=r.img']);
    expect(on.containerDisks.imageVolumes).toBe(true);
    expect(on.containerDisks.get('root')).toBe('r.img');
    expect(parseRunArgs(['run', 'v.yaml']).containerDisks.imageVolumes).toBeUndefined();
  });
});

describe('placeContainerDisks with image volumes', () => {
  const kernelBoot = { container: { image: 'k', kernelPath: '/boot/vmlinuz', initrdPath: '/boot/initramfs.gz' } };

  it('mounts each image at the path of its volume index and the kernel-boot image at its fixed path', () => {
    const root = file('images/root.img', 'root-disk');
    const extra = file('images/extra.raw', 'extra-disk');
    file('k/vmlinuz', 'kernel');
    file('k/initramfs.gz', 'initrd');
    const v = vmi(
      [
        { name: 'cloud', cloudInitNoCloud: { userData: 'x' } },
        { name: 'root', containerDisk: { image: 'r' } },
        { name: 'extra', containerDisk: { image: 'e', path: '/data/extra.raw' } },
      ],
      kernelBoot,
    );
    const runRoot = path.join(dir, 'rr');
    const disks = asImageVolumes(
      new Map([
        ['root', root],
        ['extra', extra],
      ]),
    );
    const placed = placeContainerDisks(podLayout(runRoot), v, disks, path.join(dir, 'k'));
    expect(placed).toEqual([
      'root → image volume /var/run/kubevirt-image-volume/disk_1 (read-only)',
      'extra → image volume /var/run/kubevirt-image-volume/disk_2 (read-only)',
      'kernel-boot-volume → image volume /var/run/kubevirt-kernel-boot (read-only)',
    ]);
    const mounts = readImageVolumeMounts(runRoot) ?? [];
    const content = (name: string, inImage: string) =>
      fs.readFileSync(path.join(mounts.find((m) => m.name === name)!.source, inImage), 'utf8');
    // Without `path` the image keeps its disk in /disk/; with it, where the path says; the kernel image at kernelPath.
    expect(content('root', 'disk/root.img')).toBe('root-disk');
    expect(content('extra', 'data/extra.raw')).toBe('extra-disk');
    expect(content('kernel-boot-volume', 'boot/vmlinuz')).toBe('kernel');
    expect(content('kernel-boot-volume', 'boot/initramfs.gz')).toBe('initrd');
    // virt-handler bind-mounts nothing for such a pod, and nothing plays its part: no container-disks directory.
    expect(fs.existsSync(path.join(runRoot, 'run/kubevirt/container-disks'))).toBe(false);
  });

  it('records no mounts without --image-volumes, and an empty list for a VMI without images', () => {
    const runRoot = path.join(dir, 'rr');
    placeContainerDisks(
      podLayout(runRoot),
      vmi([{ name: 'root', containerDisk: { image: 'r' } }]),
      new Map([['root', file('a.img', '')]]),
      undefined,
    );
    expect(readImageVolumeMounts(runRoot)).toBeUndefined();
    const other = path.join(dir, 'rr2');
    placeContainerDisks(podLayout(other), vmi([]), asImageVolumes(new Map()), undefined);
    expect(readImageVolumeMounts(other)).toEqual([]);
  });

  it('names what is missing, as without image volumes', () => {
    const l = podLayout(path.join(dir, 'rr'));
    const v = vmi([{ name: 'root', containerDisk: { image: 'r' } }], kernelBoot);
    expect(() => placeContainerDisks(l, v, asImageVolumes(new Map()), undefined)).toThrow(/--container-disk root=/);
    const disks = asImageVolumes(new Map([['root', file('a.img', '')]]));
    expect(() => placeContainerDisks(l, v, disks, undefined)).toThrow(LayoutError);
    expect(() => placeContainerDisks(l, v, disks, path.join(dir, 'nokernel'))).toThrow(/\/boot\/vmlinuz not found/);
  });
});

describe('mountImageVolumes', () => {
  it('is nothing without mounts', () => {
    expect(mountImageVolumes([])).toEqual([]);
  });

  it('runs the rest of the command once every mount is made (a shell that echoes stands in for mount)', () => {
    const prefix = mountImageVolumes([
      { name: 'root', source: '/s/root', mountPath: '/var/run/kubevirt-image-volume/disk_0' },
      { name: 'kernel-boot-volume', source: '/s/k', mountPath: '/var/run/kubevirt-kernel-boot' },
    ]);
    expect(prefix.slice(-6)).toEqual([
      'image-volumes',
      '/s/root',
      '/var/run/kubevirt-image-volume/disk_0',
      '/s/k',
      '/var/run/kubevirt-kernel-boot',
      '--',
    ]);
    // The script with mkdir and mount replaced by echo: the order of the calls and the command run after them.
    const script = prefix[2]!.replace(/mkdir -p/g, 'echo mkdir').replace(/mount --bind -o ro/g, 'echo mount-ro');
    const out = execFileSync('bash', ['-c', script, ...prefix.slice(3), 'echo', 'then the launcher'], {
      encoding: 'utf8',
    });
    expect(out.trim().split('\n')).toEqual([
      'mkdir /var/run/kubevirt-image-volume/disk_0',
      'mount-ro /s/root /var/run/kubevirt-image-volume/disk_0',
      'mkdir /var/run/kubevirt-kernel-boot',
      'mount-ro /s/k /var/run/kubevirt-kernel-boot',
      'then the launcher',
    ]);
  });
});
