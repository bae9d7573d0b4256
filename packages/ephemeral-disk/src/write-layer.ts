// The qcow2 write layer over a containerDisk / ephemeral backing image. The layer holds the guest's writes,
// so once it exists it is only ever reused: never recreated, never replaced. Every path under the ephemeral
// directory is opened without following links (beneath.ts).
import { stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { publishNoClobber, removeStaleTemps, singleFlight, tempPathFor } from './atomic.js';
import { createExclusive, fdPath, openExistingFile, pinDirectory } from './beneath.js';
import {
  BackingFileNotFoundError,
  BackingFormatMismatchError,
  ForeignLayerError,
  InvalidRequestError,
  UnsupportedImageError,
} from './errors.js';
import type { WriteLayerRequest, WriteLayerResult } from './gen/virtlauncher/disk/v1/disk.js';
import {
  acceptedBackingFormat,
  inspectImage,
  readImageFacts,
  refuseExternalReferences,
  type InspectLimits,
} from './image.js';
import { validateVolumeName } from './names.js';
import { setQemuOwnership } from './ownership.js';
import { report, type CallOptions } from './progress.js';
import { run } from './run.js';

export interface WriteLayerOptions extends CallOptions {
  inspectLimits?: InspectLimits;
}

const LAYER_MODE = 0o640;
const DIR_MODE = 0o755;
const LAYER_NAME = 'disk.qcow2';

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
  const { volume, ephemeralDir } = request;
  return singleFlight(
    path,
    () => makeOrReuse(path, backing, { volume, ephemeralDir, requested }, options),
    (shared) => ({ ...shared, created: false }),
  );
}

async function makeOrReuse(
  path: string,
  backing: string,
  request: { volume: string; ephemeralDir: string; requested: string | undefined },
  options: WriteLayerOptions,
): Promise<WriteLayerResult> {
  const { volume, requested } = request;
  // A missing backing file is the caller's mistake: say so before any progress is reported.
  await stat(backing).catch((error: unknown) => {
    throw new BackingFileNotFoundError(backing, error);
  });
  // The backing is judged on every call, before any directory is made: a refused image leaves nothing behind.
  report(options, { step: 'inspect-backing', subject: backing, msg: `reading the format of ${backing}` });
  const facts = await inspectImage(backing, options.inspectLimits, { volume });
  const format = acceptedBackingFormat(facts, volume);
  if (requested !== undefined && requested !== format) throw new BackingFormatMismatchError(backing, requested, format);
  const dir = await pinDirectory(request.ephemeralDir, ['disk-data', volume], DIR_MODE);
  try {
    const existing = await openExistingFile(dir, LAYER_NAME);
    if (existing !== undefined) return await reuseLayer(path, existing.handle, backing, volume, options);
    await removeStaleTemps(dir.at(LAYER_NAME));
    const temp = basename(tempPathFor(LAYER_NAME));
    report(options, {
      step: 'create-layer',
      subject: path,
      msg: `creating write layer ${path} over ${backing} (${format})`,
    });
    const file = await createExclusive(dir, temp, LAYER_MODE);
    try {
      // qemu-img writes through our descriptor, so it writes the file just created and nothing else. The size
      // and format are known from the inspection, so -u spares qemu-img a second open and probe of the backing.
      const args = ['create', '-q', '-f', 'qcow2', '-u', '-b', backing, '-F', format];
      await run('qemu-img', [...args, fdPath(file), `${facts.virtualSize}`]);
      await file.chmod(LAYER_MODE);
      await setQemuOwnership(fdPath(file));
    } catch (error) {
      await unlink(dir.at(temp)).catch(() => undefined);
      throw error;
    } finally {
      await file.close();
    }
    if (!(await publishNoClobber(dir.at(temp), dir.at(LAYER_NAME)))) {
      // Another process published first: its layer is judged like any existing one.
      const won = await openExistingFile(dir, LAYER_NAME);
      if (won === undefined) throw new InvalidRequestError('ephemeral_dir', `${path} vanished while being published`);
      return await reuseLayer(path, won.handle, backing, volume, options);
    }
    return { path, backingFormat: format, created: true, virtualSize: facts.virtualSize };
  } finally {
    await dir.close();
  }
}

/**
 * Reports the existing layer's own facts. The layer must be the one this package makes: a qcow2 over exactly
 * the requested backing and nothing else. Anything else was planted (the directory is writable from the pod)
 * and would hand the guest another file, so it is refused rather than used.
 */
async function reuseLayer(
  path: string,
  handle: FileHandle,
  backing: string,
  volume: string,
  options: WriteLayerOptions,
): Promise<WriteLayerResult> {
  try {
    const facts = { ...(await readImageFacts(fdPath(handle), options.inspectLimits)), path };
    report(options, { step: 'reuse-layer', subject: path, msg: `reusing existing write layer ${path}` });
    if (facts.format !== 'qcow2') throw new UnsupportedImageError(path, facts.format, undefined);
    if (facts.dataFile !== undefined) refuseExternalReferences(facts, volume);
    if (facts.backingFile !== backing) {
      throw new ForeignLayerError(path, volume, backing, facts.backingFile);
    }
    return { path, backingFormat: facts.backingFormat ?? '', created: false, virtualSize: facts.virtualSize };
  } finally {
    await handle.close();
  }
}
