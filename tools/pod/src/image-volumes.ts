// `virt-pod run --image-volumes`: the pod as KubeVirt v1.9 renders it with its ImageVolume gate (beta, on by
// default). virt-controller runs no containerDisk or kernel-boot init containers and no container-disks emptyDir:
// each containerDisk volume is a Kubernetes image volume mounted read-only at
// /var/run/kubevirt-image-volume/disk_<volume index>, the kernel-boot image at /var/run/kubevirt-kernel-boot
// (pkg/virt-controller/services/rendervolumes.go withImageVolumes, addContainerDiskVolumeMount,
// addKernelBootVolumeMount, Mounts), and the launcher gets --image-volume (template.go). virt-handler bind-mounts
// nothing for such a pod (pkg/virt-handler/container-disk/mount.go MountAndVerify).
//
// Playing kubelet, virt-pod lays out each image's files in a directory of the run-root (a containerDisk image
// keeps its disk in /disk/, or at the volume's `path`; the kernel-boot image its kernelPath and initrdPath) and
// writes the pod's image-volume mounts to image-volumes.json. The pod process bind-mounts each read-only at its
// mount path inside the pod's own mount namespace before the launcher starts (pod-process.ts), so the mounts
// vanish with the pod. The launcher finds the files itself (packages/launcher/src/domain/sync/image-volumes.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { containerDiskFile, kernelBootArtifacts, place } from './pod-files.js';

/** One image volume of the compute container: the directory of the image's files and its mount path in the pod. */
export interface ImageVolumeMount {
  /** The pod volume's name: the VMI volume's, or kernel-boot-volume (pkg/container-disk KernelBootVolumeName). */
  name: string;
  source: string;
  mountPath: string;
}

/** pkg/util/util.go VirtImageVolumeDir and VirtKernelBootVolumeDir. */
export const IMAGE_VOLUME_DIR = '/var/run/kubevirt-image-volume';
export const KERNEL_BOOT_VOLUME_DIR = '/var/run/kubevirt-kernel-boot';
const KERNEL_BOOT_VOLUME = 'kernel-boot-volume';
const MANIFEST = 'image-volumes.json';

/** `file` put in the image laid out under `dir`, at `inImage` (a path inside the image). */
function stageImageFile(dir: string, inImage: string, file: string): void {
  place(file, path.join(dir, path.posix.normalize(`/${inImage}`)));
}

function containerDiskMounts(
  imagesDir: string,
  vmi: VirtualMachineInstance,
  disks: ReadonlyMap<string, string>,
): ImageVolumeMount[] {
  const mounts: ImageVolumeMount[] = [];
  (vmi.spec?.volumes ?? []).forEach((volume, index) => {
    if (!volume.containerDisk) return;
    const file = containerDiskFile(volume.name, disks);
    const source = path.join(imagesDir, volume.name);
    // A containerDisk image without `path` carries its one disk file in /disk (pkg/os/disk DiskSourceFallbackPath).
    stageImageFile(source, volume.containerDisk.path || `/disk/${path.basename(file)}`, file);
    mounts.push({ name: volume.name, source, mountPath: path.posix.join(IMAGE_VOLUME_DIR, `disk_${index}`) });
  });
  return mounts;
}

function kernelBootMount(
  imagesDir: string,
  vmi: VirtualMachineInstance,
  kernelBootDir: string | undefined,
): ImageVolumeMount[] {
  const artifacts = kernelBootArtifacts(vmi, kernelBootDir);
  if (!artifacts) return [];
  const source = path.join(imagesDir, KERNEL_BOOT_VOLUME);
  fs.mkdirSync(source, { recursive: true });
  // The image holds each artifact at its own path: the launcher resolves kernelPath inside the mount.
  for (const { artifact, file } of artifacts) stageImageFile(source, artifact, file);
  return [{ name: KERNEL_BOOT_VOLUME, source, mountPath: KERNEL_BOOT_VOLUME_DIR }];
}

/**
 * Lays out the images' files under `<runRoot>/images/` and records the pod's image-volume mounts; returns one line
 * per mount. Nothing goes to the container-disk dir: with image volumes no one fills it but the launcher.
 */
export function placeImageVolumes(
  runRoot: string,
  vmi: VirtualMachineInstance,
  disks: ReadonlyMap<string, string>,
  kernelBootDir: string | undefined,
): string[] {
  const imagesDir = path.join(runRoot, 'images');
  const mounts = [...containerDiskMounts(imagesDir, vmi, disks), ...kernelBootMount(imagesDir, vmi, kernelBootDir)];
  fs.mkdirSync(runRoot, { recursive: true });
  fs.writeFileSync(path.join(runRoot, MANIFEST), JSON.stringify(mounts, null, 2));
  return mounts.map((m) => `${m.name} → image volume ${m.mountPath} (read-only)`);
}

/** The image-volume mounts placeImageVolumes recorded in `runRoot`; undefined when the pod has no image volumes. */
export function readImageVolumeMounts(runRoot: string): ImageVolumeMount[] | undefined {
  const file = path.join(runRoot, MANIFEST);
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as ImageVolumeMount[];
}

/**
 * The command prefix that makes the mounts in the pod's mount namespace (inside the private root, still as root),
 * then runs the rest: kubelet mounts a pod's volumes before its container starts.
 */
export function mountImageVolumes(mounts: ImageVolumeMount[]): string[] {
  if (mounts.length === 0) return [];
  const script = [
    'set -e',
    'while [ "$1" != -- ]; do mkdir -p "$2"; mount --bind -o ro "$1" "$2"; shift 2; done',
    'shift',
    'exec "$@"',
  ].join('\n');
  return ['bash', '-c', script, 'image-volumes', ...mounts.flatMap((m) => [m.source, m.mountPath]), '--'];
}
