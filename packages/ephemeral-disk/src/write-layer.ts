// The qcow2 write layer over a containerDisk / ephemeral backing image. The layer holds the guest's writes,
// so once it exists it is only ever reused: never recreated, never replaced.
import { chmod, mkdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { exists, publishNoClobber, removeStaleTemps, singleFlight, tempPathFor } from './atomic.js';
import { BackingFileNotFoundError, BackingFormatMismatchError, InvalidRequestError } from './errors.js';
import type { WriteLayerRequest, WriteLayerResult } from './gen/virtlauncher/disk/v1/disk.js';
import { acceptedBackingFormat, inspectImage, type InspectLimits } from './image.js';
import { validateVolumeName } from './names.js';
import { setQemuOwnership } from './ownership.js';
import { report, type CallOptions } from './progress.js';
import { run } from './run.js';

export interface WriteLayerOptions extends CallOptions {
  inspectLimits?: InspectLimits;
}

const LAYER_MODE = 0o640;
const DIR_MODE = 0o755;

export function writeLayerPath(ephemeralDir: string, volume: string): string {
  validateVolumeName(volume);
  return join(resolve(ephemeralDir), 'disk-data', volume, 'disk.qcow2');
}

export async function createWriteLayer(
  request: WriteLayerRequest,
  options: WriteLayerOptions = {},
): Promise<WriteLayerResult> {
  validateVolumeName(request.volume);
  if (!request.ephemeralDir) throw new InvalidRequestError('ephemeral_dir', 'must not be empty');
  if (!request.backingFile) throw new InvalidRequestError('backing_file', 'must not be empty');
  const requested = request.backingFormat || undefined;
  if (requested !== undefined && requested !== 'raw' && requested !== 'qcow2') {
    throw new InvalidRequestError('backing_format', `${JSON.stringify(requested)} is not raw or qcow2`);
  }
  const path = writeLayerPath(request.ephemeralDir, request.volume);
  const backing = resolve(request.backingFile);
  return singleFlight(
    path,
    () => makeOrReuse(path, backing, requested, options),
    (shared) => ({ ...shared, created: false }),
  );
}

async function makeOrReuse(
  path: string,
  backing: string,
  requested: string | undefined,
  options: WriteLayerOptions,
): Promise<WriteLayerResult> {
  if (await exists(path)) return reuseLayer(path, backing, options);
  // A missing backing file is the caller's mistake: say so before any progress is reported.
  await stat(backing).catch((error: unknown) => {
    throw new BackingFileNotFoundError(backing, error);
  });
  report(options, { step: 'inspect-backing', subject: backing, msg: `reading the format of ${backing}` });
  const facts = await inspectImage(backing, options.inspectLimits);
  const format = acceptedBackingFormat(facts);
  if (requested !== undefined && requested !== format) throw new BackingFormatMismatchError(backing, requested, format);

  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
  await removeStaleTemps(path);
  const temp = tempPathFor(path);
  report(options, {
    step: 'create-layer',
    subject: path,
    msg: `creating write layer ${path} over ${backing} (${format})`,
  });
  try {
    // The size and format are already known from the inspection, so -u spares qemu-img a second open and
    // probe of the backing image; the result is the same header qemu-img would write without it.
    await run('qemu-img', [
      'create',
      '-q',
      '-f',
      'qcow2',
      '-u',
      '-b',
      backing,
      '-F',
      format,
      temp,
      `${facts.virtualSize}`,
    ]);
    await chmod(temp, LAYER_MODE);
    await setQemuOwnership(temp);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (!(await publishNoClobber(temp, path))) return reuseLayer(path, backing, options);
  return { path, backingFormat: format, created: true, virtualSize: facts.virtualSize };
}

/** Reports the existing layer's own facts; a layer over a different backing is kept but flagged. */
async function reuseLayer(path: string, backing: string, options: WriteLayerOptions): Promise<WriteLayerResult> {
  const facts = await inspectImage(path, options.inspectLimits);
  report(options, { step: 'reuse-layer', subject: path, msg: `reusing existing write layer ${path}` });
  if (facts.backingFile !== undefined && facts.backingFile !== backing) {
    report(options, {
      step: 'reuse-layer',
      subject: path,
      level: 'warning',
      msg: `existing write layer ${path} is backed by ${facts.backingFile}, not ${backing}; kept as is`,
    });
  }
  return { path, backingFormat: facts.backingFormat ?? '', created: false, virtualSize: facts.virtualSize };
}
