// KubeVirt's MigrationOptions as the handler sends them: JSON with Go field names in MigrationRequest.options.
// Parsed strictly: a field of the wrong type is a MigrationOptionsError naming the field and the value, so a bad
// request never starts half a migration.
import { parseQuantity, toBytes } from '@virt-launcher/shared';

export class MigrationOptionsError extends Error {
  constructor(
    message: string,
    readonly field: string,
    readonly value: unknown,
  ) {
    super(message);
    this.name = 'MigrationOptionsError';
  }
}

export interface MigrationOptions {
  /** Bandwidth cap in MiB/s (the Quantity rounded up to whole MiB); 0 = unlimited. */
  bandwidthMiB: number;
  /** Seconds without progress (data remaining not shrinking) before the migration is aborted; 0 = never. */
  progressTimeout: number;
  /** Seconds per GiB of data to move before the migration is helped to complete or aborted; 0 = never. */
  completionTimeoutPerGiB: number;
  maxDowntimeMs: number;
  unsafeMigration: boolean;
  allowAutoConverge: boolean;
  allowPostCopy: boolean;
  allowWorkloadDisruption: boolean;
  /** Parallel migration connections, when the handler asks for them. */
  parallelMigrationThreads?: number;
  /** `zstd` when asked; other methods are dropped with a warning, as KubeVirt does. */
  compression?: string;
  /** The stall detector (VEP 248) was asked for; this launcher runs the legacy convergence path instead. */
  stallDetectorRequested: boolean;
}

type Json = Record<string, unknown>;

/**
 * The ranges a value must lie in to mean something to libvirt and QEMU, so a request that would fail only once the
 * migration runs (or never end) is refused at the RPC. KubeVirt's MigrationOptions (pkg/virt-handler/cmd-client/
 * client.go) types the timeouts int64 and the downtime uint64; a JSON number is exact only up to 2^53 - 1.
 */
export const MIGRATION_OPTION_RANGES = {
  /** Seconds: int64 in KubeVirt, bounded to what a JSON number holds exactly. */
  timeoutSeconds: { max: Number.MAX_SAFE_INTEGER, unit: 'seconds' },
  /** QEMU refuses a downtime limit above 2000 s (its downtime-limit parameter). */
  maxDowntimeMs: { max: 2_000_000, unit: 'ms (QEMU allows at most 2000 s)' },
  /** libvirt's QEMU driver caps the speed at INT64_MAX bytes/s, whole MiB/s: 2^43 - 1 (QEMU_DOMAIN_MIG_BANDWIDTH_MAX). */
  bandwidthMiB: { max: 2 ** 43 - 1, unit: 'MiB/s' },
  /** QEMU's multifd-channels is a uint8 of at least 1. */
  parallelThreads: { min: 1, max: 255, unit: 'connections' },
} as const;

interface Range {
  min?: number;
  max: number;
  unit: string;
}

function num(o: Json, field: string, range: Range): number {
  const v = o[field];
  if (v === undefined || v === null) return 0;
  const min = range.min ?? 0;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || !Number.isInteger(v)) {
    throw new MigrationOptionsError(
      `MigrationOptions.${field}: ${JSON.stringify(v)} is not a whole number >= ${min}`,
      field,
      v,
    );
  }
  if (v > range.max) {
    throw new MigrationOptionsError(
      `MigrationOptions.${field}: ${JSON.stringify(v)} is out of range (${min} to ${range.max} ${range.unit})`,
      field,
      v,
    );
  }
  return v;
}

function bool(o: Json, field: string): boolean {
  const v = o[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') {
    throw new MigrationOptionsError(`MigrationOptions.${field}: ${JSON.stringify(v)} is not a boolean`, field, v);
  }
  return v;
}

/** resource.Quantity marshals as a string ("64Mi"); a bare number is accepted too. */
function bandwidthMiB(o: Json): number {
  const v = o.Bandwidth;
  if (v === undefined || v === null || v === '' || v === 0 || v === '0') return 0;
  const q = typeof v === 'number' || typeof v === 'string' ? parseQuantity(String(v)) : undefined;
  if (!q || q.numerator < 0n) {
    throw new MigrationOptionsError(
      `MigrationOptions.Bandwidth: ${JSON.stringify(v)} is not a quantity`,
      'Bandwidth',
      v,
    );
  }
  const mib = 1n << 20n;
  const { max, unit } = MIGRATION_OPTION_RANGES.bandwidthMiB;
  const wholeMiB = (toBytes(q) + mib - 1n) / mib;
  if (wholeMiB > BigInt(max)) {
    throw new MigrationOptionsError(
      `MigrationOptions.Bandwidth: ${JSON.stringify(v)} is out of range (0 to ${max} ${unit})`,
      'Bandwidth',
      v,
    );
  }
  return Number(wholeMiB);
}

export function parseMigrationOptions(raw: Uint8Array | undefined): MigrationOptions {
  if (!raw || raw.length === 0) {
    throw new MigrationOptionsError('migration options object not present in command server request', 'options', raw);
  }
  let o: unknown;
  try {
    o = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw new MigrationOptionsError(
      `no valid migration options object present in command server request: ${(err as Error).message}`,
      'options',
      Buffer.from(raw).toString('utf8').slice(0, 80),
    );
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) {
    throw new MigrationOptionsError('MigrationOptions: expected a JSON object', 'options', o);
  }
  const j = o as Json;
  const threads = j.ParallelMigrationThreads;
  const compression = j.Compression;
  if (compression !== undefined && compression !== null && typeof compression !== 'string') {
    throw new MigrationOptionsError(
      `MigrationOptions.Compression: ${JSON.stringify(compression)} is not a string`,
      'Compression',
      compression,
    );
  }
  return {
    bandwidthMiB: bandwidthMiB(j),
    progressTimeout: num(j, 'ProgressTimeout', MIGRATION_OPTION_RANGES.timeoutSeconds),
    completionTimeoutPerGiB: num(j, 'CompletionTimeoutPerGiB', MIGRATION_OPTION_RANGES.timeoutSeconds),
    maxDowntimeMs: num(j, 'MaxDowntimeMs', MIGRATION_OPTION_RANGES.maxDowntimeMs),
    unsafeMigration: bool(j, 'UnsafeMigration'),
    allowAutoConverge: bool(j, 'AllowAutoConverge'),
    allowPostCopy: bool(j, 'AllowPostCopy'),
    allowWorkloadDisruption: bool(j, 'AllowWorkloadDisruption'),
    parallelMigrationThreads:
      threads === undefined || threads === null
        ? undefined
        : num(j, 'ParallelMigrationThreads', MIGRATION_OPTION_RANGES.parallelThreads),
    compression: compression === 'zstd' ? 'zstd' : undefined,
    stallDetectorRequested: j.StallDetectorOptions !== undefined && j.StallDetectorOptions !== null,
  };
}
