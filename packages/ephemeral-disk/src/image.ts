// Facts about an image from `qemu-img info`, which parses untrusted bytes (a containerDisk comes from any
// registry): it runs under prlimit with a CPU-time and address-space cap, like KubeVirt's `ulimit -t -v`.
// Facts are cached per file identity (device, inode, size, mtime, ctime) so a second layer over the same
// backing costs no second inspection, while any change to the file invalidates the entry.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { BackingFileNotFoundError, ToolError, UnsupportedImageError } from './errors.js';
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
  return {
    path,
    format,
    virtualSize,
    actualSize: bigField(json, 'actual-size'),
    backingFile: typeof backing === 'string' ? backing : undefined,
    backingFormat: typeof backingFormat === 'string' ? backingFormat : undefined,
  };
}

/** `qemu-img info -U --output=json` under CPU and memory limits; cached per file identity. */
export async function inspectImage(path: string, limits: InspectLimits = {}): Promise<ImageFacts> {
  const absolute = resolve(path);
  let identity: string;
  try {
    const info = await stat(absolute, { bigint: true });
    identity = `${absolute}\0${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  } catch (error) {
    throw new BackingFileNotFoundError(absolute, error);
  }
  const hit = cache.get(identity);
  if (hit !== undefined) return { ...hit };
  const { cpuSeconds, memoryBytes } = { ...DEFAULT_INSPECT_LIMITS, ...limits };
  const args = [`--cpu=${cpuSeconds}`, `--as=${memoryBytes}`, 'qemu-img', 'info', '-U', '--output=json', absolute];
  const { stdout } = await run('prlimit', args);
  const facts = parseImageInfo(absolute, stdout);
  cache.set(identity, facts);
  return { ...facts };
}

export type ContainerDiskFormat = 'raw' | 'qcow2';

/** Only raw, or qcow2 without a backing file of its own, may back a write layer. */
export function acceptedBackingFormat(facts: ImageFacts): ContainerDiskFormat {
  if (facts.format === 'raw') return 'raw';
  if (facts.format === 'qcow2') {
    if (facts.backingFile !== undefined) throw new UnsupportedImageError(facts.path, facts.format, facts.backingFile);
    return 'qcow2';
  }
  throw new UnsupportedImageError(facts.path, facts.format, undefined);
}
