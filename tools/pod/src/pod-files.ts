// What both ways of handing a pod its images share (layout.ts: init containers and virt-handler's bind mounts;
// image-volumes.ts: kubelet's image volumes): the file a containerDisk volume's image carries, the kernel-boot
// artifacts found in --kernel-boot-dir, and putting a file in place without copying it when possible.
import fs from 'node:fs';
import path from 'node:path';
import type { VirtualMachineInstance } from '@virt-launcher/converter';

export class LayoutError extends Error {
  override name = 'LayoutError';
}

/** Hard link when possible (instant, no copy of a big image), copy across file systems. */
export function place(source: string, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target);
  }
}

/** The image file given for a containerDisk volume (--container-disk VOLUME=FILE), checked to exist. */
export function containerDiskFile(volume: string, disks: ReadonlyMap<string, string>): string {
  const file = disks.get(volume);
  if (!file) throw new LayoutError(`volume ${volume}: containerDisk needs --container-disk ${volume}=IMAGE_FILE`);
  if (!fs.existsSync(file)) throw new LayoutError(`--container-disk ${volume}: ${file} does not exist`);
  return path.resolve(file);
}

/** Every --container-disk names a containerDisk volume of the VMI. */
export function refuseUnknownContainerDisks(vmi: VirtualMachineInstance, disks: ReadonlyMap<string, string>): void {
  const volumes = vmi.spec?.volumes ?? [];
  for (const name of disks.keys()) {
    if (!volumes.some((v) => v.name === name && v.containerDisk)) {
      throw new LayoutError(`--container-disk ${name}: the VMI has no containerDisk volume of that name`);
    }
  }
}

/** kernelPath and initrdPath of the VMI's kernel-boot image, each with the file found for it (DIR/<path> or DIR/<basename>). */
export function kernelBootArtifacts(
  vmi: VirtualMachineInstance,
  kernelBootDir: string | undefined,
): { artifact: string; file: string }[] | undefined {
  const kernelBoot = vmi.spec?.domain?.firmware?.kernelBoot?.container;
  if (!kernelBoot) return undefined;
  if (!kernelBootDir) throw new LayoutError('spec.domain.firmware.kernelBoot needs --kernel-boot-dir DIR');
  return [kernelBoot.kernelPath, kernelBoot.initrdPath]
    .filter((p): p is string => !!p)
    .map((artifact) => {
      const candidates = [path.join(kernelBootDir, artifact), path.join(kernelBootDir, path.basename(artifact))];
      const file = candidates.find((c) => fs.existsSync(c));
      if (!file) throw new LayoutError(`kernel boot artifact ${artifact} not found in ${kernelBootDir}`);
      return { artifact, file };
    });
}
