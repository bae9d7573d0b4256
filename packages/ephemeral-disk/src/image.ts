// Facts about an image from `qemu-img info`, which parses untrusted bytes (a containerDisk comes from any
// registry): it runs under prlimit with a CPU-time and address-space cap, like KubeVirt's `ulimit -t -v`.
// Facts are cached per file identity (device, inode, size, mtime, ctime) so a second layer over the same
// backing costs no second inspection, while any change to the file invalidates the entry.
//
// An image the pod did not make must be self-contained: a backing file, an external data file or a json:
// filename would make QEMU open another file of the pod as part of the guest's disk. The qcow2 header is read
// first, so such an image is refused before qemu-img (which opens a data file) ever sees it.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fdPath } from './beneath.js';
import {
  BackingFileNotFoundError,
  ExternalReferenceError,
  type ImageReferenceKind,
  ToolError,
  UnsafePathError,
  UnsupportedImageError,
} from './errors.js';
import { readQcow2References } from './qcow2-header.js';
import { run } from './run.js';

export interface ImageFacts {
  path: string;
  /** As reported by qemu-img: "raw", "qcow2", "vmdk", ... */
  format: string;
  virtualSize: bigint;
  actualSize: bigint | undefined;
  /** The image's own backing file, when it has one. */
  backingFile: string | undefined;
  backingFormat: string | undefined;
  /** A qcow2's external data file (QEMU reads and writes the guest's data there), when it has one. */
  dataFile: string | undefined;
}

export interface InspectLimits {
  /** CPU seconds; KubeVirt uses 10. */
  cpuSeconds?: number;
  /** Address-space cap in bytes; KubeVirt's default disk-verification limit is 2000 MiB. */
  memoryBytes?: number;
}

export const DEFAULT_INSPECT_LIMITS: Required<InspectLimits> = { cpuSeconds: 10, memoryBytes: 2000 * 1024 * 1024 };

const cache = new Map<string, ImageFacts>();

export function clearImageFactsCache(): void {
  cache.clear();
}

/** Bigint fields read from the text, since JSON.parse would round sizes above 2^53. */
function bigField(json: string, key: string): bigint | undefined {
  const match = new RegExp(`"${key}"\\s*:\\s*(\\d+)`).exec(json);
  return match?.[1] === undefined ? undefined : BigInt(match[1]);
}

export function parseImageInfo(path: string, json: string): ImageFacts {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new ToolError('qemu-img', ['info', path], `unparsable output: ${json.slice(0, 200)}`, 0, null);
  }
  const format = parsed['format'];
  const virtualSize = bigField(json, 'virtual-size');
  if (typeof format !== 'string' || virtualSize === undefined) {
    throw new ToolError('qemu-img', ['info', path], 'output lacks format or virtual-size', 0, null);
  }
  const backing = parsed['full-backing-filename'] ?? parsed['backing-filename'];
  const backingFormat = parsed['backing-filename-format'];
  const specific = (parsed['format-specific'] as { data?: Record<string, unknown> } | undefined)?.data;
  const dataFile = specific?.['data-file'];
  return {
    path,
    format,
    virtualSize,
    actualSize: bigField(json, 'actual-size'),
    backingFile: typeof backing === 'string' ? backing : undefined,
    backingFormat: typeof backingFormat === 'string' ? backingFormat : undefined,
    dataFile: typeof dataFile === 'string' ? dataFile : undefined,
  };
}

export interface InspectContext {
  /** The volume the image belongs to, named in a refusal. */
  volume?: string;
}

// Wall-clock cap on top of prlimit's CPU cap: a probe blocked opening something (no CPU used) must end too.
const INSPECT_TIMEOUT_MS = 60_000;

async function openImage(absolute: string): Promise<FileHandle> {
  try {
    // O_NONBLOCK: a FIFO planted as an image must not hang the open; it is refused below.
    return await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new BackingFileNotFoundError(absolute, error);
  }
}

/** The facts of an image, its references included, without judging them (also for the layers we made). */
export async function readImageFacts(path: string, limits: InspectLimits = {}): Promise<ImageFacts> {
  const absolute = resolve(path);
  const handle = await openImage(absolute);
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile() && !info.isBlockDevice()) throw new UnsafePathError(absolute, 'not a regular file');
    const identity = `${absolute}\0${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
    const hit = cache.get(identity);
    if (hit !== undefined) return { ...hit };
    const header = await readQcow2References(handle);
    if (header?.dataFile !== undefined) {
      // Not handed to qemu-img at all: it would open the data file while reading the image.
      const facts: ImageFacts = {
        path: absolute,
        format: 'qcow2',
        virtualSize: 0n,
        actualSize: undefined,
        backingFile: header.backingFile,
        backingFormat: undefined,
        dataFile: header.dataFile,
      };
      return facts;
    }
    const { cpuSeconds, memoryBytes } = { ...DEFAULT_INSPECT_LIMITS, ...limits };
    // The descriptor's path: qemu-img reads the very file checked above, even if the name is swapped meanwhile.
    const args = [`--cpu=${cpuSeconds}`, `--as=${memoryBytes}`, 'qemu-img', 'info', '-U', '--output=json'];
    const { stdout } = await run('prlimit', [...args, fdPath(handle)], { timeoutMs: INSPECT_TIMEOUT_MS });
    const facts = parseImageInfo(absolute, stdout);
    cache.set(identity, facts);
    return { ...facts };
  } finally {
    await handle.close();
  }
}

/** Throws when the image refers to any file outside itself. */
export function refuseExternalReferences(facts: ImageFacts, volume?: string): void {
  const refuse = (kind: ImageReferenceKind, reference: string) => {
    throw new ExternalReferenceError(facts.path, facts.format, kind, reference, volume);
  };
  if (facts.dataFile !== undefined) refuse('external data file', facts.dataFile || '(unnamed)');
  // A json: name is a backing reference too (it can name any driver and file); it is refused as one.
  if (facts.backingFile !== undefined) refuse('backing file', facts.backingFile);
}

/**
 * `qemu-img info -U --output=json` under CPU and memory limits; cached per file identity. Refuses an image
 * that refers to another file (ExternalReferenceError): every caller inspects images the pod did not make.
 */
export async function inspectImage(
  path: string,
  limits: InspectLimits = {},
  context: InspectContext = {},
): Promise<ImageFacts> {
  const facts = await readImageFacts(path, limits);
  refuseExternalReferences(facts, context.volume);
  return facts;
}

export type ContainerDiskFormat = 'raw' | 'qcow2';

/** Only raw, or a self-contained qcow2 (no backing or data file of its own), may back a write layer. */
export function acceptedBackingFormat(facts: ImageFacts, volume?: string): ContainerDiskFormat {
  if (facts.format === 'raw') return 'raw';
  if (facts.format === 'qcow2') {
    refuseExternalReferences(facts, volume);
    return 'qcow2';
  }
  throw new UnsupportedImageError(facts.path, facts.format, undefined);
}
