// Which volumes blockSize.matchVolume asks the launcher to measure, where their backing device or file is, and
// how a device's raw numbers become the sizes the converter writes into <blockio>. Pure: block-size-probe.ts
// does the measuring. KubeVirt's launcher measures the disk's source as the converter names it: a block
// device's logical and physical sector sizes (BLKSSZGET, BLKPBSZGET) and its queue's discard granularity, or
// for a file the block size of the filesystem it is on (statfs), used for all three. It does so before its
// pre-start step makes any file, so in practice only volumes that already exist (PVCs, DataVolumes, host disks)
// can be measured; those are the ones measured here. Any other matching disk reaches the converter unmeasured
// and is refused there, by name.
import { join } from 'node:path';
import type { ConverterContext } from '../../adapters/converter.js';
import { InvalidRequestError } from '../../errors.js';
import type { LauncherPaths } from '../../paths.js';
import type { VmiView } from '../../vmi.js';
import { volumeStatusMaps } from './runtime/context-facts.js';
import { blockDevicePath, diskImgPath, hostDiskPath } from './storage/pvc.js';

export type VolumeBlockSizes = ConverterContext['volumeBlockSizes'][string];

/** One volume to measure: the disk that asked (for errors), and the device or file behind it. */
export interface MeasureTarget {
  volume: string;
  /** The disk's path in the VMI, e.g. `spec.domain.devices.disks[1].blockSize.matchVolume`. */
  field: string;
  kind: 'block' | 'file';
  /** Where this launcher reaches it (under --run-root). */
  path: string;
}

interface DiskDoc {
  name?: unknown;
  blockSize?: { custom?: unknown; matchVolume?: { enabled?: unknown } | null };
}

/**
 * Disks that ask for their volume's block size: matchVolume present and not switched off, and no custom size
 * (which wins in KubeVirt's converter). Read from the request, as the view keeps no disk details.
 */
export function matchVolumeDisks(vmi: Pick<VmiView, 'raw'>): Array<{ name: string; field: string }> {
  let disks: DiskDoc[] = [];
  try {
    const doc = JSON.parse(vmi.raw.toString('utf8')) as { spec?: { domain?: { devices?: { disks?: unknown } } } };
    const listed = doc.spec?.domain?.devices?.disks;
    disks = Array.isArray(listed) ? (listed as DiskDoc[]) : [];
  } catch {
    // The request was parsed already to make the view; unparsable here means there is nothing to measure.
  }
  return disks.flatMap((disk, i) => {
    const match = disk.blockSize?.matchVolume;
    if (typeof disk.name !== 'string' || match == null || match.enabled === false || disk.blockSize?.custom) return [];
    return [{ name: disk.name, field: `spec.domain.devices.disks[${i}].blockSize.matchVolume` }];
  });
}

/**
 * The device or file the converter will name for each measurable volume a matching disk uses, decided on the
 * same facts the converter gets: `blockVolumes` (a device node at /dev/<volume>) and the hotplug status.
 */
export function measureTargets(
  vmi: VmiView,
  blockVolumes: Record<string, boolean>,
  paths: LauncherPaths,
): MeasureTarget[] {
  const disks = matchVolumeDisks(vmi);
  if (disks.length === 0) return [];
  const { hotplugVolumes } = volumeStatusMaps(vmi);
  const targets: MeasureTarget[] = [];
  for (const { name, field } of disks) {
    const volume = vmi.volumes.find((v) => v.name === name);
    if (!volume) continue;
    const block = blockVolumes[name] === true;
    const claim = Boolean(volume.persistentVolumeClaim || volume.dataVolume);
    if (hotplugVolumes[name] && (claim || volume.hostDisk)) {
      const path = join(paths.hotplugDiskDir, block ? name : `${name}.img`);
      targets.push({ volume: name, field, kind: block ? 'block' : 'file', path });
    } else if (claim) {
      const path = block ? blockDevicePath({ paths }, name) : diskImgPath({ paths }, name);
      targets.push({ volume: name, field, kind: block ? 'block' : 'file', path });
    } else if (volume.hostDisk?.path) {
      targets.push({ volume: name, field, kind: 'file', path: hostDiskPath({ paths }, name, volume.hostDisk.path) });
    }
  }
  return targets;
}

/**
 * A block device's sizes as KubeVirt settles them: a zero logical or physical size takes the other one (both
 * zero is refused), and a discard granularity that is not a multiple of the logical size becomes the physical
 * size (0, "no discard", is a multiple of everything and stays).
 */
export function deviceBlockSizes(
  target: Pick<MeasureTarget, 'volume' | 'field' | 'path'>,
  logical: number,
  physical: number,
  discardGranularity: number,
): VolumeBlockSizes {
  if (logical === 0 && physical === 0) {
    throw new InvalidRequestError(
      `${target.field}: the block device of volume ${target.volume} (${target.path}) reports block sizes of 0`,
      target.field,
    );
  }
  const sizes = { logical: logical || physical, physical: physical || logical };
  return {
    ...sizes,
    discardGranularity: discardGranularity % sizes.logical === 0 ? discardGranularity : sizes.physical,
  };
}

/** A file's sizes: the filesystem's block size for all three, as a filesystem has no separate sector sizes. */
export function fileBlockSizes(filesystemBlockSize: number): VolumeBlockSizes {
  return { logical: filesystemBlockSize, physical: filesystemBlockSize, discardGranularity: filesystemBlockSize };
}
