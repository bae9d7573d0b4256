// --image-volume on a real file tree laid out as kubelet mounts KubeVirt v1.9's image volumes: each containerDisk
// image at /var/run/kubevirt-image-volume/disk_<index>, the kernel-boot image at /var/run/kubevirt-kernel-boot
// (pkg/virt-controller/services/rendervolumes.go addContainerDiskVolumeMount, addKernelBootVolumeMount). The
// launcher links <container-disk-dir>/disk_<index>.img and kernel-boot/<basename> to the files inside them
// (pkg/virt-launcher/virtwrap/manager.go linkImageVolumeFilePaths, getDiskTargetPathFromImageVolumeView), and the
// write layer is made over the read-only file through that link.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEphemeralDisk } from '../../adapters/ephemeral-disk.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths, type LauncherPaths } from '../../paths.js';
import { parseVmiRequest } from '../../vmi.js';
import { supportsDirectIo } from './storage/disk-cache.js';
import { diskFileInImageVolume, ImageVolumeError, linkImageVolumeFiles } from './image-volumes.js';

let root = '';
let paths: LauncherPaths;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vlt-launcher-imagevol-'));
  // The launcher's own defaults, as virt-controller's template passes them.
  paths = resolvePaths(parseFlags(['--run-root', root, '--uid', 'u1', '--image-volume']));
  await mkdir(paths.containerDiskDir, { recursive: true });
});
afterEach(async () => {
  await chmod(root, 0o755);
  execFileSync('chmod', ['-R', 'u+w', root]);
  await rm(root, { recursive: true, force: true });
});

/** One image's files, as kubelet shows the image volume: written, then made read-only. */
async function imageVolume(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), content);
  }
}

function vmi(volumes: unknown[], kernelBoot?: object) {
  const doc = {
    metadata: { name: 'guest', namespace: 'default', uid: 'u1' },
    spec: {
      domain: { devices: { disks: [] }, ...(kernelBoot ? { firmware: { kernelBoot } } : {}) },
      volumes,
    },
  };
  return parseVmiRequest(Buffer.from(JSON.stringify(doc)));
}

describe('the paths KubeVirt fixes for image volumes', () => {
  it('are /var/run/kubevirt-image-volume and /var/run/kubevirt-kernel-boot under the run root', () => {
    // pkg/util/util.go VirtImageVolumeDir, VirtKernelBootVolumeDir
    expect(paths.imageVolumeDir).toBe(join(root, 'var/run/kubevirt-image-volume'));
    expect(paths.kernelBootVolumeDir).toBe(join(root, 'var/run/kubevirt-kernel-boot'));
  });
});

describe('diskFileInImageVolume', () => {
  it('takes the only file of /disk when the volume names no path', async () => {
    await imageVolume(join(root, 'img'), { 'disk/guest.qcow2': 'x' });
    expect(await diskFileInImageVolume(join(root, 'img'), undefined)).toBe(join(root, 'img/disk/guest.qcow2'));
  });

  it('refuses an empty /disk and a /disk with two files', async () => {
    await mkdir(join(root, 'empty/disk'), { recursive: true });
    await expect(diskFileInImageVolume(join(root, 'empty'), undefined)).rejects.toThrow(/no file found/);
    await imageVolume(join(root, 'two'), { 'disk/a.img': 'a', 'disk/b.img': 'b' });
    await expect(diskFileInImageVolume(join(root, 'two'), undefined)).rejects.toThrow(
      /2 files found \(a\.img, b\.img\), only one disk is allowed/,
    );
  });

  it('takes `path` inside the image, wherever the file lies', async () => {
    await imageVolume(join(root, 'img'), { 'images/os.raw': 'x', 'disk/other.img': 'y' });
    expect(await diskFileInImageVolume(join(root, 'img'), '/images/os.raw')).toBe(join(root, 'img/images/os.raw'));
  });

  it('resolves a linked /disk inside the image, not in the pod', async () => {
    // The pod's own container-disks directory holds one file too: a /disk -> <that host path> link must not find it.
    await writeFile(join(paths.containerDiskDir, 'pod-file'), 'pod');
    await imageVolume(join(root, 'img'), { 'data/guest.img': 'x' });
    await symlink(paths.containerDiskDir, join(root, 'img/disk'));
    await expect(diskFileInImageVolume(join(root, 'img'), undefined)).rejects.toThrow(/ENOENT/);
    await rm(join(root, 'img/disk'));
    await symlink('/data', join(root, 'img/disk'));
    expect(await diskFileInImageVolume(join(root, 'img'), undefined)).toBe(join(root, 'img/data/guest.img'));
  });
});

describe('linkImageVolumeFiles', () => {
  it('links each containerDisk by its index among all volumes, and the kernel-boot artifacts by basename', async () => {
    await imageVolume(join(paths.imageVolumeDir, 'disk_1'), { 'disk/root.img': 'root' });
    await imageVolume(join(paths.imageVolumeDir, 'disk_2'), { 'data/extra.raw': 'extra' });
    await imageVolume(paths.kernelBootVolumeDir, { 'boot/vmlinuz': 'k', 'boot/initramfs.gz': 'i' });
    const v = vmi(
      [
        { name: 'cloudinit', cloudInitNoCloud: { userData: '#!/bin/sh' } },
        { name: 'root', containerDisk: { image: 'root' } },
        { name: 'extra', containerDisk: { image: 'extra', path: '/data/extra.raw' } },
      ],
      { container: { image: 'kernel', kernelPath: '/boot/vmlinuz', initrdPath: '/boot/initramfs.gz' } },
    );
    const linked = await linkImageVolumeFiles(paths, v);
    expect(linked).toHaveLength(4);
    const link = (name: string) => readlink(join(paths.containerDiskDir, name));
    expect(await link('disk_1.img')).toBe(join(paths.imageVolumeDir, 'disk_1/disk/root.img'));
    expect(await link('disk_2.img')).toBe(join(paths.imageVolumeDir, 'disk_2/data/extra.raw'));
    expect(await link('kernel-boot/vmlinuz')).toBe(join(paths.kernelBootVolumeDir, 'boot/vmlinuz'));
    expect(await link('kernel-boot/initramfs.gz')).toBe(join(paths.kernelBootVolumeDir, 'boot/initramfs.gz'));
    // A second sync keeps the links.
    await expect(linkImageVolumeFiles(paths, v)).resolves.toHaveLength(4);
  });

  it('names the volume whose image lacks its disk, and the kernel artifact that is missing', async () => {
    await mkdir(join(paths.imageVolumeDir, 'disk_0'), { recursive: true });
    const error = await linkImageVolumeFiles(paths, vmi([{ name: 'root', containerDisk: { image: 'r' } }])).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ImageVolumeError);
    expect(error).toMatchObject({ volume: 'root' });
    expect((error as Error).message).toMatch(/volume root .*\/disk: ENOENT/);
    await mkdir(paths.kernelBootVolumeDir, { recursive: true });
    await expect(
      linkImageVolumeFiles(paths, vmi([], { container: { image: 'k', kernelPath: '/vmlinuz' } })),
    ).rejects.toThrow(/kernelBoot\.container\.kernelPath \/vmlinuz .*ENOENT/);
  });

  it('lets the write layer be made over the read-only image file through the link', async () => {
    const volume = join(paths.imageVolumeDir, 'disk_0');
    await mkdir(join(volume, 'disk'), { recursive: true });
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', join(volume, 'disk/os.qcow2'), '16M']);
    await chmod(join(volume, 'disk/os.qcow2'), 0o444);
    await chmod(join(volume, 'disk'), 0o555);
    await chmod(volume, 0o555);
    await linkImageVolumeFiles(paths, vmi([{ name: 'root', containerDisk: { image: 'r' } }]));
    const eph = await loadEphemeralDisk();
    const backingFile = join(paths.containerDiskDir, 'disk_0.img');
    const layer = await eph.createWriteLayer({ ephemeralDir: paths.ephemeralDiskDir, volume: 'root', backingFile });
    expect(layer).toMatchObject({ backingFormat: 'qcow2', created: true, virtualSize: 16n * 1024n * 1024n });
    const info = JSON.parse(
      execFileSync('qemu-img', ['info', '-U', '--output=json', layer.path], { encoding: 'utf8' }),
    );
    expect(info['backing-filename']).toBe(backingFile);
    // The cache-mode probe opens the backing through the link too, as KubeVirt's directIOChecker does.
    expect(await supportsDirectIo(backingFile)).toBe(await supportsDirectIo(join(volume, 'disk/os.qcow2')));
  });
});
