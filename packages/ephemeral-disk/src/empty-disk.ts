// emptyDisk volumes: a sparse qcow2 of the requested capacity, kept for the life of the pod.
import { mkdir, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { exists, publishNoClobber, removeStaleTemps, singleFlight, tempPathFor } from './atomic.js';
import { InvalidRequestError, SizeTooSmallError } from './errors.js';
import type { EmptyDiskRequest, EmptyDiskResult } from './gen/virtlauncher/disk/v1/disk.js';
import { inspectImage } from './image.js';
import { validateVolumeName } from './names.js';
import { setQemuOwnership } from './ownership.js';
import { report, type CallOptions } from './progress.js';
import { alignDownToMiB, parseQuantity } from './quantity.js';
import { run } from './run.js';

export function emptyDiskPath(emptyDiskDir: string, volume: string): string {
  validateVolumeName(volume);
  return join(resolve(emptyDiskDir), `${volume}.qcow2`);
}

export async function createEmptyDisk(request: EmptyDiskRequest, options: CallOptions = {}): Promise<EmptyDiskResult> {
  validateVolumeName(request.volume);
  if (!request.emptyDiskDir) throw new InvalidRequestError('empty_disk_dir', 'must not be empty');
  const size = alignDownToMiB(parseQuantity(request.capacity));
  if (size === 0n) throw new SizeTooSmallError(`volume ${request.volume}`, size);
  const path = emptyDiskPath(request.emptyDiskDir, request.volume);
  return singleFlight(
    path,
    () => makeOrReuse(path, size, options),
    (shared) => ({ ...shared, created: false }),
  );
}

async function makeOrReuse(path: string, size: bigint, options: CallOptions): Promise<EmptyDiskResult> {
  if (await exists(path)) return reuse(path, options);
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  await removeStaleTemps(path);
  const temp = tempPathFor(path);
  report(options, { step: 'create-empty-disk', subject: path, msg: `creating empty disk ${path} of ${size} bytes` });
  try {
    await run('qemu-img', ['create', '-q', '-f', 'qcow2', temp, `${size}`]);
    await setQemuOwnership(temp);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (!(await publishNoClobber(temp, path))) return reuse(path, options);
  return { path, virtualSize: size, created: true };
}

/** An existing empty disk keeps its size (a changed capacity is ignored, as in KubeVirt) but is re-owned. */
async function reuse(path: string, options: CallOptions): Promise<EmptyDiskResult> {
  await setQemuOwnership(path);
  const facts = await inspectImage(path);
  report(options, { step: 'reuse-empty-disk', subject: path, msg: `reusing empty disk ${path}` });
  return { path, virtualSize: facts.virtualSize, created: false };
}
