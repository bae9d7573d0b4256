// The pod's directories under its private run-root, and the container disk images put where the launcher expects
// them (packages/ephemeral-disk/docs/storage.md#container-disks: <container-disk-dir>/disk_<volumeIndex>.img and <container-disk-dir>/kernel-boot/<basename>).
// Inside the private root, /var/run is /run = <runRoot>/run.
import fs from 'node:fs';
import path from 'node:path';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { placeImageVolumes } from './image-volumes.js';
import { containerDiskFile, kernelBootArtifacts, place, refuseUnknownContainerDisks } from './pod-files.js';

export { LayoutError } from './pod-files.js';

export interface PodLayout {
  runRoot: string;
  /** The host path of a pod path such as /var/run/kubevirt/sockets/launcher-sock. */
  hostPath(podPath: string): string;
}

export function podLayout(runRoot: string): PodLayout {
  return {
    runRoot,
    hostPath: (p) => path.join(runRoot, 'run', p.replace(/^\/(var\/)?run\//, '')),
  };
}

/** The images' files for the containerDisk volumes (--container-disk), and whether kubelet mounts them as image volumes. */
export type ContainerDiskFiles = ReadonlyMap<string, string> & { readonly imageVolumes?: boolean };

/** --container-disk files that the pod gets as image volumes (--image-volumes) instead of through init containers. */
export function asImageVolumes(disks: Map<string, string>): ContainerDiskFiles {
  return Object.assign(disks, { imageVolumes: true as const });
}

/**
 * The container disks and the kernel-boot artifacts where the pod finds them: by default where KubeVirt's
 * init containers and virt-handler's bind mount put them, with image volumes as kubelet mounts those
 * (image-volumes.ts).
 */
export function placeContainerDisks(
  layout: PodLayout,
  vmi: VirtualMachineInstance,
  disks: ContainerDiskFiles,
  kernelBootDir: string | undefined,
): string[] {
  refuseUnknownContainerDisks(vmi, disks);
  if (disks.imageVolumes) return placeImageVolumes(layout.runRoot, vmi, disks, kernelBootDir);
  const placed: string[] = [];
  const dir = layout.hostPath('/var/run/kubevirt/container-disks');
  fs.mkdirSync(dir, { recursive: true });
  (vmi.spec?.volumes ?? []).forEach((volume, index) => {
    if (!volume.containerDisk) return;
    place(containerDiskFile(volume.name, disks), path.join(dir, `disk_${index}.img`));
    placed.push(`${volume.name} → disk_${index}.img`);
  });
  for (const { artifact, file } of kernelBootArtifacts(vmi, kernelBootDir) ?? []) {
    place(file, path.join(dir, 'kernel-boot', path.basename(artifact)));
    placed.push(`kernel-boot/${path.basename(artifact)}`);
  }
  return placed;
}
