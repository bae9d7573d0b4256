// The pod's directories under its private run-root, and the container disk images put where the launcher expects
// them (packages/ephemeral-disk/docs/storage.md#container-disks: <container-disk-dir>/disk_<volumeIndex>.img and <container-disk-dir>/kernel-boot/<basename>).
// Inside the private root, /var/run is /run = <runRoot>/run.
import fs from 'node:fs';
import path from 'node:path';
import type { VirtualMachineInstance } from '@virt-launcher/converter';

export class LayoutError extends Error {
  override name = 'LayoutError';
}

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

/** Hard link when possible (instant, no copy of a big image), copy across file systems. */
function place(source: string, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target);
  }
}

export function placeContainerDisks(
  layout: PodLayout,
  vmi: VirtualMachineInstance,
  disks: Map<string, string>,
  kernelBootDir: string | undefined,
): string[] {
  const placed: string[] = [];
  const dir = layout.hostPath('/var/run/kubevirt/container-disks');
  fs.mkdirSync(dir, { recursive: true });
  const volumes = vmi.spec?.volumes ?? [];
  volumes.forEach((volume, index) => {
    if (!volume.containerDisk) return;
    const file = disks.get(volume.name);
    if (!file)
      throw new LayoutError(`volume ${volume.name}: containerDisk needs --container-disk ${volume.name}=IMAGE_FILE`);
    if (!fs.existsSync(file)) throw new LayoutError(`--container-disk ${volume.name}: ${file} does not exist`);
    place(path.resolve(file), path.join(dir, `disk_${index}.img`));
    placed.push(`${volume.name} → disk_${index}.img`);
  });
  for (const name of disks.keys()) {
    if (!volumes.some((v) => v.name === name && v.containerDisk)) {
      throw new LayoutError(`--container-disk ${name}: the VMI has no containerDisk volume of that name`);
    }
  }
  const kernelBoot = vmi.spec?.domain?.firmware?.kernelBoot?.container;
  if (kernelBoot) {
    if (!kernelBootDir) throw new LayoutError('spec.domain.firmware.kernelBoot needs --kernel-boot-dir DIR');
    for (const artifact of [kernelBoot.kernelPath, kernelBoot.initrdPath].filter((p): p is string => !!p)) {
      const candidates = [path.join(kernelBootDir, artifact), path.join(kernelBootDir, path.basename(artifact))];
      const found = candidates.find((c) => fs.existsSync(c));
      if (!found) throw new LayoutError(`kernel boot artifact ${artifact} not found in ${kernelBootDir}`);
      place(found, path.join(dir, 'kernel-boot', path.basename(artifact)));
      placed.push(`kernel-boot/${path.basename(artifact)}`);
    }
  }
  return placed;
}
