// libvirt flag bits the face accepts, with libvirt's values (libvirt-domain.h, libvirt 9.0).

/** virDomainModificationImpact / virDomainDeviceModifyFlags, for attachDevice/detachDevice. */
export const DeviceModifyFlags = {
  CURRENT: 0,
  LIVE: 1,
  CONFIG: 2,
  FORCE: 4,
} as const;

/** virDomainCreateFlags */
export const CreateFlags = {
  NONE: 0,
  PAUSED: 1,
  AUTODESTROY: 2,
  BYPASS_CACHE: 4,
  FORCE_BOOT: 8,
  VALIDATE: 16,
} as const;

/** virDomainShutdownFlagValues (also used by reboot). */
export const ShutdownFlags = {
  DEFAULT: 0,
  ACPI_POWER_BTN: 1,
  GUEST_AGENT: 2,
  INITCTL: 4,
  SIGNAL: 8,
  PARAVIRT: 16,
} as const;

/** virDomainDestroyFlagsValues */
export const DestroyFlags = { DEFAULT: 0, GRACEFUL: 1, REMOVE_LOGS: 2 } as const;

/** virDomainUndefineFlagsValues */
export const UndefineFlags = {
  MANAGED_SAVE: 1,
  SNAPSHOTS_METADATA: 2,
  NVRAM: 4,
  KEEP_NVRAM: 8,
  CHECKPOINTS_METADATA: 16,
  TPM: 32,
  KEEP_TPM: 64,
} as const;

/** virDomainXMLFlags */
export const XMLFlags = { SECURE: 1, INACTIVE: 2, UPDATE_CPU: 4, MIGRATABLE: 8 } as const;

/** virDomainDefineFlags */
export const DefineFlags = { VALIDATE: 1 } as const;

/** virConnectListAllDomainsFlags (subset). */
export const ListDomainsFlags = {
  ACTIVE: 1,
  INACTIVE: 2,
  PERSISTENT: 4,
  TRANSIENT: 8,
  RUNNING: 16,
  PAUSED: 32,
  SHUTOFF: 64,
} as const;

/** virDomainStatsTypes: 0 asks libvirt for every group it supports. */
export const StatsTypes = {
  ALL: 0,
  STATE: 1,
  CPU_TOTAL: 2,
  BALLOON: 4,
  VCPU: 8,
  INTERFACE: 16,
  BLOCK: 32,
  PERF: 64,
  IOTHREAD: 128,
  MEMORY: 256,
  DIRTYRATE: 512,
  VM: 1024,
} as const;

/** virDomainQemuAgentCommandTimeoutValues: special timeouts for qemuAgentCommand (seconds otherwise). */
export const AgentTimeout = { BLOCK: -2, DEFAULT: -1, NOWAIT: 0 } as const;

/** A libvirt version number (major * 1,000,000 + minor * 1,000 + micro) as "major.minor.micro". */
export function formatVersion(version: number): string {
  const major = Math.floor(version / 1_000_000);
  const minor = Math.floor((version % 1_000_000) / 1_000);
  return `${major}.${minor}.${version % 1_000}`;
}
