// DiskOrCreate host disks: a sparse raw image of the requested capacity, made only when missing and only
// when the filesystem has the room for it (a sparse file that later cannot be filled would fail the guest's
// writes with ENOSPC long after start).
import { lstat, statfs, stat, unlink, writeFile, truncate } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import { publishNoClobber, removeStaleTemps, tempPathFor } from './atomic.js';
import { InsufficientSpaceError, InvalidRequestError, SizeTooSmallError, UnsafePathError } from './errors.js';
import type { HostDiskRequest, HostDiskResult } from './gen/virtlauncher/disk/v1/disk.js';
import { setQemuOwnership } from './ownership.js';
import { report, type CallOptions } from './progress.js';
import { MIB, alignDownToMiB, parseCapacity } from './quantity.js';

const DEFAULT_RESERVE = 131072n;
const DEFAULT_TOLERATION = 10;

export interface SpacePlan {
  size: bigint;
  tolerated: boolean;
}

/**
 * How big the disk may be: the request when it fits in `available` (free bytes minus the reserve), else
 * the available room when the request lacks at most `tolerationPercent`, else an InsufficientSpaceError.
 */
export function planHostDiskSize(
  path: string,
  requested: bigint,
  available: bigint,
  tolerationPercent: number,
): SpacePlan {
  if (requested <= available) return { size: requested, tolerated: false };
  const minimum = (requested * BigInt(100 - tolerationPercent)) / 100n;
  const room = alignDownToMiB(available);
  if (minimum <= available && room >= MIB) return { size: room, tolerated: true };
  throw new InsufficientSpaceError(path, requested, available < 0n ? 0n : available);
}

/**
 * Whether the disk is there. Only a regular file counts: a link planted at the disk's name would hand the
 * guest (which gets it as a raw disk) whatever file it points to.
 */
async function existingHostDisk(path: string): Promise<boolean> {
  const found = await lstat(path).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (found === undefined) return false;
  if (found.isSymbolicLink()) throw new UnsafePathError(path, 'symlink');
  if (!found.isFile()) throw new UnsafePathError(path, 'not a regular file');
  return true;
}

export async function createHostDisk(request: HostDiskRequest, options: CallOptions = {}): Promise<HostDiskResult> {
  const path = request.path;
  if (!path || !isAbsolute(path) || path.includes('\0') || path.split('/').includes('..')) {
    throw new InvalidRequestError('path', `${JSON.stringify(path)} must be an absolute path without ".."`);
  }
  const tolerationPercent = request.tolerationPercent ?? DEFAULT_TOLERATION;
  if (!Number.isInteger(tolerationPercent) || tolerationPercent < 0 || tolerationPercent > 100) {
    throw new InvalidRequestError('toleration_percent', `${tolerationPercent} is not within 0..100`);
  }
  const requested = alignDownToMiB(parseCapacity(request.capacity));
  if (requested === 0n) throw new SizeTooSmallError(path, requested);

  if (await existingHostDisk(path)) {
    const size = (await stat(path, { bigint: true })).size;
    report(options, { step: 'reuse-host-disk', subject: path, msg: `host disk ${path} exists, kept` });
    return { path, size, created: false, tolerated: false };
  }
  const fs = await statfs(dirname(path), { bigint: true }).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidRequestError('path', `directory ${dirname(path)} cannot be used (${code})`);
  });
  const available = fs.bavail * fs.bsize - (request.reserveBytes ?? DEFAULT_RESERVE);
  const plan = planHostDiskSize(path, requested, available, tolerationPercent);
  if (plan.tolerated) {
    report(options, {
      step: 'create-host-disk',
      subject: path,
      level: 'warning',
      msg: `host disk ${path} shrunk from ${requested} to ${plan.size} bytes to fit the filesystem (ToleratedSmallPV)`,
    });
  }
  await removeStaleTemps(path);
  const temp = tempPathFor(path);
  report(options, {
    step: 'create-host-disk',
    subject: path,
    msg: `creating sparse host disk ${path} of ${plan.size} bytes`,
  });
  try {
    await writeFile(temp, '', { flag: 'wx', mode: 0o666 });
    await truncate(temp, Number(plan.size));
    await setQemuOwnership(temp);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (!(await publishNoClobber(temp, path))) {
    const size = (await stat(path, { bigint: true })).size;
    return { path, size, created: false, tolerated: false };
  }
  return { path, size: plan.size, created: true, tolerated: plan.tolerated };
}
