// The face of @virt-launcher/libvirt: everything other packages may use is exported here.
export { connect, Connection } from './connection.js';
export { Domain } from './domain.js';
export type { ShutdownMode } from './domain.js';
export { LibvirtError, errorCodeName } from './errors.js';
export { ErrorCode, ErrorDomain } from './error-codes.js';
export type { ErrorCodeName, ErrorDomainName } from './error-codes.js';
export {
  AgentTimeout,
  CreateFlags,
  DefineFlags,
  DestroyFlags,
  DeviceModifyFlags,
  ListDomainsFlags,
  ShutdownFlags,
  StatsTypes,
  UndefineFlags,
  XMLFlags,
  formatVersion,
} from './flags.js';
export type * from './types.js';
export { handleCounts } from './handles.js';
export { BlockResizeFlags, VcpuFlags } from './runtime-flags.js';
export type { HandleCounts } from './native.js';
export { MigrateFlags, JobType, JobOperation, JobStatsFlags } from './migration.js';
export type { MigrateParams, JobStats } from './migration.js';
export { GuestInfoTypes, AuthorizedSSHKeysFlags, SetTimeFlags, shapeGuestInfo } from './agent.js';
export type {
  GuestInfo,
  GuestUser,
  GuestOSInfo,
  GuestFilesystem,
  GuestFilesystemDisk,
  GuestInterface,
  GuestIPAddress,
} from './agent.js';
