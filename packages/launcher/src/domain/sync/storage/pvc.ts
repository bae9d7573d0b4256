// PVC-backed disks. A block PVC is the device node /dev/<volume> that the pod gets; a filesystem PVC is
// vmi-disks/<volume>/disk.img on the mounted claim, made (sparse raw) when absent with the size KubeVirt's
// host-disk logic picks: the claim's request when it is larger than its capacity or the capacity is unknown,
// else the capacity, rounded down to 1 MiB, within the space the filesystem has (10 % short is tolerated).
// An `ephemeral` volume gets a qcow2 overlay in disk-data/<volume>/ over the claim (raw), so the claim is
// never written.
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { EphemeralDiskFace } from '../../../adapters/ephemeral-disk.js';
import { InvalidRequestError } from '../../../errors.js';
import { log } from '../../../log.js';
import type { VolumeView } from '../../../vmi.js';
import type { SyncEnv } from '../env.js';
import { underRoot, type StorageSpec } from './spec.js';

async function kindOf(path: string): Promise<'block' | 'file' | 'other' | 'missing'> {
  const found = await stat(path).catch(() => undefined);
  if (found === undefined) return 'missing';
  return found.isBlockDevice() ? 'block' : found.isFile() ? 'file' : 'other';
}

export function blockDevicePath(env: Pick<SyncEnv, 'paths'>, volume: string): string {
  return underRoot(env, `/dev/${volume}`);
}

export function diskImgPath(env: Pick<SyncEnv, 'paths'>, volume: string): string {
  return join(env.paths.vmiDisksDir, volume, 'disk.img');
}

/** A host disk's file: its directory is mounted at vmi-disks/<volume>/, the file keeps its own base name. */
export function hostDiskPath(env: Pick<SyncEnv, 'paths'>, volume: string, hostPath: string): string {
  return join(env.paths.vmiDisksDir, volume, basename(hostPath));
}

/** KubeVirt's choice between a claim's request and its capacity ('' when neither is known). */
export function pvcDiskSize(eph: EphemeralDiskFace, info: StorageSpec['pvc'][string] | undefined): string {
  if (!info) return '';
  const { capacity, requests } = info;
  if (requests && (!capacity || eph.parseCapacity(capacity) < eph.parseCapacity(requests))) return requests;
  return capacity;
}

/** The claim's disk as the converter names it: the device node when one exists, else disk.img. */
async function ensureClaimDisk(
  env: SyncEnv,
  eph: EphemeralDiskFace,
  volume: string,
  spec: StorageSpec,
  field: string,
  create: boolean,
): Promise<string> {
  const device = blockDevicePath(env, volume);
  if ((await kindOf(device)) === 'block') return device;
  const info = spec.pvc[volume];
  if (info?.volumeMode === 'Block') {
    throw new InvalidRequestError(`${field}: block volume ${volume} has no block device at ${device}`, field);
  }
  const image = diskImgPath(env, volume);
  const found = await kindOf(image);
  if (found === 'file') return image;
  if (found === 'other') throw new InvalidRequestError(`${field}: ${image} is not a regular file`, field);
  const size = create ? pvcDiskSize(eph, info) : '';
  if (!size) {
    throw new InvalidRequestError(
      create
        ? `${field}: ${image} is missing and status.volumeStatus gives no capacity for volume ${volume}`
        : `${field}: the claim of ephemeral volume ${volume} has no ${image} (it is only read, never made)`,
      field,
    );
  }
  const made = await eph.createHostDisk({ path: image, capacity: size });
  if (made.tolerated) log.warning(`PV size too small for volume ${volume}: disk.img shrunk to ${made.size} bytes`);
  return image;
}

export async function preparePvcVolume(
  env: SyncEnv,
  eph: EphemeralDiskFace,
  volume: VolumeView,
  index: number,
  spec: StorageSpec,
): Promise<boolean> {
  const field = `spec.volumes[${index}]`;
  if (volume.persistentVolumeClaim || volume.dataVolume) {
    await ensureClaimDisk(env, eph, volume.name, spec, field, true);
    return true;
  }
  if (volume.ephemeral) {
    const backing = await ensureClaimDisk(env, eph, volume.name, spec, field, false);
    await eph.createWriteLayer({
      ephemeralDir: env.paths.ephemeralDiskDir,
      volume: volume.name,
      backingFile: backing,
      backingFormat: 'raw',
    });
    return true;
  }
  return false;
}
