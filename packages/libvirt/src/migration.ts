// Live migration on the face: flags, parameters and job statistics of virDomainMigrateToURI3 and the job calls
// around it (native/migration.cc). Domain's migration methods delegate here.
import { ErrorCode, ErrorDomain } from './error-codes.js';
import { LibvirtError, call } from './errors.js';
import { addon, type NativeDomain } from './native.js';

/** virDomainMigrateFlags (libvirt-domain.h, libvirt 9.0). */
export const MigrateFlags = {
  LIVE: 1 << 0,
  PEER2PEER: 1 << 1,
  TUNNELLED: 1 << 2,
  PERSIST_DEST: 1 << 3,
  UNDEFINE_SOURCE: 1 << 4,
  PAUSED: 1 << 5,
  NON_SHARED_DISK: 1 << 6,
  NON_SHARED_INC: 1 << 7,
  CHANGE_PROTECTION: 1 << 8,
  UNSAFE: 1 << 9,
  OFFLINE: 1 << 10,
  COMPRESSED: 1 << 11,
  ABORT_ON_ERROR: 1 << 12,
  AUTO_CONVERGE: 1 << 13,
  POSTCOPY: 1 << 15,
  TLS: 1 << 16,
  PARALLEL: 1 << 17,
} as const;

/** virDomainJobType: what getJobStats reports in `type`. */
export const JobType = { NONE: 0, BOUNDED: 1, UNBOUNDED: 2, COMPLETED: 3, FAILED: 4, CANCELLED: 5 } as const;

/** virDomainJobOperation, the `operation` job statistic. */
export const JobOperation = { MIGRATION_IN: 4, MIGRATION_OUT: 5 } as const;

/** virDomainGetJobStatsFlags */
export const JobStatsFlags = { COMPLETED: 1, KEEP_COMPLETED: 2 } as const;

/** The typed parameters of virDomainMigrateToURI3 this face passes (each VIR_MIGRATE_PARAM_* of the same name). */
export interface MigrateParams {
  /** Where the destination's QEMU listens (`tcp://…`, `unix:///path`). */
  uri?: string;
  destName?: string;
  destXml?: string;
  persistXml?: string;
  /** Bandwidth cap in MiB/s; 0 = unlimited. */
  bandwidthMiB?: number;
  /** Disk targets (`vda`) to copy with NON_SHARED_*; all non-shared disks when left out. */
  migrateDisks?: string[];
  /** Where the destination's NBD server listens for the disk copy (`unix:///path`). */
  disksUri?: string;
  parallelConnections?: number;
  compression?: string;
}

export interface JobStats {
  /** A JobType value. */
  type: number;
  /** libvirt's job statistics by field name: `data_remaining`, `memory_iteration`, `downtime`, `operation`, … */
  stats: Record<string, number | string | boolean>;
}

const invalid = (message: string) => new LibvirtError(message, ErrorCode.INVALID_ARG, ErrorDomain.NONE);

export function migrateToURI3(dom: NativeDomain, destUri: string, params: MigrateParams, flags: number): Promise<void> {
  if (!destUri) return Promise.reject(invalid('migrateToURI3: destUri must not be empty'));
  return call(addon.migration.migrateToURI3(dom, destUri, params, flags));
}

export function getJobStats(dom: NativeDomain, flags = 0): Promise<JobStats> {
  return call(addon.migration.getJobStats(dom, flags));
}

export function abortJob(dom: NativeDomain): Promise<void> {
  return call(addon.migration.abortJob(dom));
}

export function startPostCopy(dom: NativeDomain): Promise<void> {
  return call(addon.migration.startPostCopy(dom));
}

export function setMaxDowntime(dom: NativeDomain, ms: number): Promise<void> {
  if (!Number.isSafeInteger(ms) || ms < 0) return Promise.reject(invalid(`setMaxDowntime: ms must be >= 0, got ${ms}`));
  return call(addon.migration.setMaxDowntime(dom, ms));
}

export function setMaxSpeed(dom: NativeDomain, mibPerSecond: number): Promise<void> {
  if (!Number.isSafeInteger(mibPerSecond) || mibPerSecond < 0)
    return Promise.reject(invalid(`setMaxSpeed: MiB/s must be >= 0, got ${mibPerSecond}`));
  return call(addon.migration.setMaxSpeed(dom, mibPerSecond));
}
