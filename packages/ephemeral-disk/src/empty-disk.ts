// emptyDisk volumes: a sparse qcow2 of the requested capacity, kept for the life of the pod. The directory and
// the disk are opened without following links (beneath.ts).
import { unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { publishNoClobber, removeStaleTemps, singleFlight, tempPathFor } from './atomic.js';
import { createExclusive, fdPath, openExistingFile, pinDirectory } from './beneath.js';
import { InvalidRequestError, SizeTooSmallError, UnsupportedImageError } from './errors.js';
import type { EmptyDiskRequest, EmptyDiskResult } from './gen/virtlauncher/disk/v1/disk.js';
import { readImageFacts, refuseExternalReferences } from './image.js';
import { validateVolumeName } from './names.js';
import { setQemuOwnership } from './ownership.js';
import { report, type CallOptions } from './progress.js';
import { alignDownToMiB, parseCapacity } from './quantity.js';
import { run } from './run.js';

export function emptyDiskPath(emptyDiskDir: string, volume: string): string {
  validateVolumeName(volume);
  return join(resolve(emptyDiskDir), `${volume}.qcow2`);
}

export async function createEmptyDisk(request: EmptyDiskRequest, options: CallOptions = {}): Promise<EmptyDiskResult> {
  validateVolumeName(request.volume);
  if (!request.emptyDiskDir) throw new InvalidRequestError('empty_disk_dir', 'must not be empty');
  const size = alignDownToMiB(parseCapacity(request.capacity));
  if (size === 0n) throw new SizeTooSmallError(`volume ${request.volume}`, size);
  const path = emptyDiskPath(request.emptyDiskDir, request.volume);
  return singleFlight(
    path,
    () => makeOrReuse(path, size, options),
    (shared) => ({ ...shared, created: false }),
  );
}

async function makeOrReuse(path: string, size: bigint, options: CallOptions): Promise<EmptyDiskResult> {
  const name = basename(path);
  const dir = await pinDirectory(dirname(path), [], 0o755);
  try {
    const existing = await openExistingFile(dir, name);
    if (existing !== undefined) return await reuse(path, existing.handle, options);
    await removeStaleTemps(dir.at(name));
    const temp = basename(tempPathFor(name));
    report(options, { step: 'create-empty-disk', subject: path, msg: `creating empty disk ${path} of ${size} bytes` });
    const file = await createExclusive(dir, temp, 0o644);
    try {
      // Through our descriptor: qemu-img writes the file just created, whatever happens to the names.
      await run('qemu-img', ['create', '-q', '-f', 'qcow2', fdPath(file), `${size}`]);
      await setQemuOwnership(fdPath(file));
    } catch (error) {
      await unlink(dir.at(temp)).catch(() => undefined);
      throw error;
    } finally {
      await file.close();
    }
    if (!(await publishNoClobber(dir.at(temp), dir.at(name)))) {
      const won = await openExistingFile(dir, name);
      if (won === undefined) throw new InvalidRequestError('empty_disk_dir', `${path} vanished while being published`);
      return await reuse(path, won.handle, options);
    }
    return { path, virtualSize: size, created: true };
  } finally {
    await dir.close();
  }
}

/**
 * An existing empty disk keeps its size (a changed capacity is ignored, as in KubeVirt) but is re-owned. It
 * must be a self-contained qcow2, as this package makes it: a planted one with a backing or data file is refused.
 */
async function reuse(path: string, handle: FileHandle, options: CallOptions): Promise<EmptyDiskResult> {
  try {
    await setQemuOwnership(fdPath(handle));
    const facts = { ...(await readImageFacts(fdPath(handle))), path };
    if (facts.format !== 'qcow2') throw new UnsupportedImageError(path, facts.format, undefined);
    refuseExternalReferences(facts);
    report(options, { step: 'reuse-empty-disk', subject: path, msg: `reusing empty disk ${path}` });
    return { path, virtualSize: facts.virtualSize, created: false };
  } finally {
    await handle.close();
  }
}
