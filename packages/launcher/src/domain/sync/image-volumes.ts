// --image-volume (KubeVirt v1.9's ImageVolume feature gate, beta and on by default): virt-controller runs no
// containerDisk or kernel-boot init containers. It renders each containerDisk volume as a Kubernetes image
// volume that kubelet mounts read-only in the compute container at /var/run/kubevirt-image-volume/disk_<index>,
// the kernel-boot image at /var/run/kubevirt-kernel-boot, leaves out the container-disks emptyDir, and adds
// --image-volume to the launcher's command (pkg/virt-controller/services/rendervolumes.go withImageVolumes,
// addContainerDiskVolumeMount, addKernelBootVolumeMount, Mounts; template.go). virt-handler then mounts nothing
// (pkg/virt-handler/container-disk/mount.go MountAndVerify returns early for such a pod). Before each conversion
// the launcher links the names the rest of the pod already knows to the files in those mounts
// (pkg/virt-launcher/virtwrap/manager.go SyncVMI and linkImageVolumeFilePaths, live-migration-target.go):
//   <container-disk-dir>/disk_<index>.img      → the disk file in the image
//   <container-disk-dir>/kernel-boot/<basename> → kernelPath / initrdPath in the kernel-boot image
// so the converter, the disk checks and the write layer over the read-only file work as with init containers.
import { mkdir, readdir, symlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { LauncherPaths } from '../../paths.js';
import type { VmiView } from '../../vmi.js';
import { resolveInRoot, RootedPathError } from './resolve-in-root.js';

/** The directory of a containerDisk image that holds its one disk file when the volume names no `path`. */
export const DISK_FALLBACK_DIR = 'disk';

/** An image volume that does not hold the file the VMI asks for; names the volume and the reason. */
export class ImageVolumeError extends Error {
  constructor(
    readonly volume: string,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'ImageVolumeError';
  }
}

export type ImageVolumePaths = Pick<LauncherPaths, 'containerDiskDir' | 'imageVolumeDir' | 'kernelBootVolumeDir'>;

/** Where kubelet mounts the image volume of the containerDisk volume at `index` of spec.volumes. */
export function containerDiskImageVolume(paths: ImageVolumePaths, index: number): string {
  return join(paths.imageVolumeDir, `disk_${index}`);
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The disk file in a containerDisk image volume: `path` resolved inside the image, or else the only entry of
 * its /disk directory (manager.go getDiskTargetPathFromImageVolumeView). /disk itself is resolved inside the
 * image too, where KubeVirt lists it as the launcher sees it: a link named disk cannot point the launcher at
 * another directory of the pod.
 */
export async function diskFileInImageVolume(volumeRoot: string, path: string | undefined): Promise<string> {
  if (path) return resolveInRoot(volumeRoot, path);
  const diskDir = await resolveInRoot(volumeRoot, DISK_FALLBACK_DIR);
  const entries = await readdir(diskDir).catch((error: unknown) => {
    throw new RootedPathError(volumeRoot, `/${DISK_FALLBACK_DIR}`, reason(error));
  });
  if (entries.length === 0)
    throw new RootedPathError(volumeRoot, `/${DISK_FALLBACK_DIR}`, 'no file found, no disk present');
  if (entries.length > 1)
    throw new RootedPathError(
      volumeRoot,
      `/${DISK_FALLBACK_DIR}`,
      `${entries.length} files found (${entries.sort().join(', ')}), only one disk is allowed`,
    );
  return resolveInRoot(diskDir, entries[0] ?? '');
}

/** A link that already exists is kept, as KubeVirt keeps it (the sync runs again for every VMI update). */
async function linkOnce(target: string, link: string): Promise<void> {
  await symlink(target, link).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
}

interface KernelBootContainer {
  kernelPath?: string;
  initrdPath?: string;
}

/** spec.domain.firmware.kernelBoot.container, when the VMI boots a kernel from an image (util.HasKernelBootContainerImage). */
export function kernelBootContainer(vmi: VmiView): KernelBootContainer | undefined {
  type Doc = { spec?: { domain?: { firmware?: { kernelBoot?: { container?: KernelBootContainer } } } } };
  const doc = JSON.parse(vmi.raw.toString('utf8')) as Doc;
  const container = doc.spec?.domain?.firmware?.kernelBoot?.container;
  return container && typeof container === 'object' ? container : undefined;
}

async function linkContainerDisks(paths: ImageVolumePaths, vmi: VmiView, linked: string[]): Promise<void> {
  for (const [index, volume] of vmi.volumes.entries()) {
    if (!volume.containerDisk) continue;
    const link = join(paths.containerDiskDir, `disk_${index}.img`);
    try {
      const file = await diskFileInImageVolume(containerDiskImageVolume(paths, index), volume.containerDisk.path);
      await linkOnce(file, link);
      linked.push(`${link} -> ${file}`);
    } catch (error) {
      throw new ImageVolumeError(
        volume.name,
        `failed to find disk file of volume ${volume.name} in its image volume: ${reason(error)}`,
        error,
      );
    }
  }
}

async function linkKernelBoot(paths: ImageVolumePaths, vmi: VmiView, linked: string[]): Promise<void> {
  const container = kernelBootContainer(vmi);
  if (!container) return;
  const dir = join(paths.containerDiskDir, 'kernel-boot');
  await mkdir(dir, { recursive: true, mode: 0o755 });
  for (const [field, artifact] of [
    ['kernelPath', container.kernelPath],
    ['initrdPath', container.initrdPath],
  ] as const) {
    if (!artifact) continue;
    const link = join(dir, basename(artifact));
    try {
      const file = await resolveInRoot(paths.kernelBootVolumeDir, artifact);
      await linkOnce(file, link);
      linked.push(`${link} -> ${file}`);
    } catch (error) {
      throw new ImageVolumeError(
        'kernel-boot-volume',
        `failed to find kernelBoot.container.${field} ${artifact} in the kernel-boot image volume: ${reason(error)}`,
        error,
      );
    }
  }
}

/** Links every containerDisk and kernel-boot file of the VMI from its image volume; returns the links made. */
export async function linkImageVolumeFiles(paths: ImageVolumePaths, vmi: VmiView): Promise<string[]> {
  const linked: string[] = [];
  await linkContainerDisks(paths, vmi, linked);
  await linkKernelBoot(paths, vmi, linked);
  return linked;
}
