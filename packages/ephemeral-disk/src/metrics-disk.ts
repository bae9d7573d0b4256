// The downwardMetrics disk (`vhostmd0`): the raw 256 KiB file that vhostmd-aware guest tools (vm-dump-metrics)
// read as a virtio disk. Its layout, as docs/storage.md describes it: a 16-byte big-endian header
// (signature "mvbd", busy flag, byte-sum checksum of the body, body length), then an XML body
// `<metrics><metric type=… context=… [unit=…]><name/><value/></metric>…</metrics>`, zero-padded.
// A writer sets the busy flag while it rewrites the body, so a reader never trusts a half-written document.
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { createExclusive, openExistingFile, pinDirectory } from './beneath.js';
import { DiskError, InvalidRequestError, UnsafePathError } from './errors.js';
import { setQemuOwnership } from './ownership.js';

export const METRICS_DISK_SIZE = 262_144;
const HEADER_SIZE = 16;
const MAX_BODY = METRICS_DISK_SIZE - HEADER_SIZE;
const SIGNATURE = Buffer.from('mvbd', 'ascii');

export type MetricContext = 'host' | 'vm';
export type MetricType = 'real64' | 'real32' | 'int64' | 'int32' | 'uint64' | 'uint32' | 'string';

export interface Metric {
  name: string;
  type: MetricType;
  context: MetricContext;
  value: string;
  unit?: string;
}

/** The disk exists but cannot be written or read as a metrics disk (not the caller's mistake). */
export class MetricsDiskError extends DiskError {
  readonly badInput = false;
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`metrics disk ${path}: ${reason}`);
  }
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function metricsBody(metrics: readonly Metric[]): Buffer {
  const lines = ['<metrics>'];
  for (const m of metrics) {
    const unit = m.unit ? ` unit="${escapeXml(m.unit)}"` : '';
    lines.push(`  <metric type="${m.type}" context="${m.context}"${unit}>`);
    lines.push(`    <name>${escapeXml(m.name)}</name>`);
    lines.push(`    <value>${escapeXml(m.value)}</value>`);
    lines.push('  </metric>');
  }
  lines.push('</metrics>', '');
  return Buffer.from(lines.join('\n'), 'utf8');
}

function header(busy: boolean, body: Buffer): Buffer {
  const h = Buffer.alloc(HEADER_SIZE);
  SIGNATURE.copy(h, 0);
  h.writeInt32BE(busy ? 1 : 0, 4);
  let sum = 0;
  for (const byte of body) sum = (sum + byte) | 0;
  h.writeInt32BE(sum, 8);
  h.writeInt32BE(body.length, 12);
  return h;
}

async function writeInto(handle: FileHandle, path: string, metrics: readonly Metric[]): Promise<void> {
  const body = metricsBody(metrics);
  if (body.length > MAX_BODY) throw new MetricsDiskError(path, `body of ${body.length} bytes exceeds ${MAX_BODY}`);
  // Busy first (and on disk) so a reader skips the body while it changes; then the body, then the final header.
  await handle.write(header(true, body), 0, HEADER_SIZE, 0);
  await handle.datasync();
  const padded = Buffer.alloc(MAX_BODY);
  body.copy(padded);
  await handle.write(padded, 0, padded.length, HEADER_SIZE);
  await handle.write(header(false, body), 0, HEADER_SIZE, 0);
}

/**
 * Creates the disk with an empty metrics document when it is missing; an existing regular file is kept (the
 * writer refreshes it). The directory is opened without following links (beneath.ts).
 */
export async function createMetricsDisk(path: string): Promise<{ path: string; created: boolean }> {
  if (!path.startsWith('/')) throw new InvalidRequestError('path', `${JSON.stringify(path)} must be absolute`);
  const dir = await pinDirectory(dirname(path), [], 0o755);
  try {
    const existing = await openExistingFile(dir, basename(path));
    if (existing !== undefined) {
      await existing.handle.close();
      return { path, created: false };
    }
    const handle = await createExclusive(dir, basename(path), 0o644);
    try {
      await handle.truncate(METRICS_DISK_SIZE);
      await writeInto(handle, path, []);
    } finally {
      await handle.close();
    }
    await setQemuOwnership(dir.at(basename(path)));
    return { path, created: true };
  } finally {
    await dir.close();
  }
}

/** Rewrites the metrics document of an existing disk (never creates or follows a link). */
export async function writeMetrics(path: string, metrics: readonly Metric[]): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDWR | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UnsafePathError(path, 'symlink');
    throw new MetricsDiskError(path, `cannot be opened (${code})`);
  }
  try {
    const facts = await handle.stat();
    if (!facts.isFile()) throw new UnsafePathError(path, 'not a regular file');
    await writeInto(handle, path, metrics);
  } finally {
    await handle.close();
  }
}

/** Reads and verifies the disk as a guest tool would: signature, not busy, checksum. */
export async function readMetricsDisk(path: string): Promise<{ busy: boolean; body: string }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const h = Buffer.alloc(HEADER_SIZE);
    await handle.read(h, 0, HEADER_SIZE, 0);
    if (!h.subarray(0, 4).equals(SIGNATURE)) throw new MetricsDiskError(path, 'no mvbd signature');
    const busy = h.readInt32BE(4) !== 0;
    const length = h.readInt32BE(12);
    if (length < 0 || length > MAX_BODY) throw new MetricsDiskError(path, `body length ${length} out of range`);
    const body = Buffer.alloc(length);
    await handle.read(body, 0, length, HEADER_SIZE);
    if (!busy && header(false, body).readInt32BE(8) !== h.readInt32BE(8)) {
      throw new MetricsDiskError(path, 'checksum mismatch');
    }
    return { busy, body: body.toString('utf8') };
  } finally {
    await handle.close();
  }
}
