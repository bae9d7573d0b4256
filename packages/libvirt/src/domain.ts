// Domain: one libvirt domain handle. Every method is one libvirt call run off the JS thread.
import { ErrorCode, ErrorDomain } from './error-codes.js';
import { LibvirtError, call } from './errors.js';
import {
  AgentTimeout,
  CreateFlags,
  DestroyFlags,
  DeviceModifyFlags,
  ShutdownFlags,
  UndefineFlags,
  XMLFlags,
} from './flags.js';
import { STATE_NAMES, STATE_REASON_NAMES } from './libvirt-names.js';
import * as agent from './agent.js';
import type { GuestInfo } from './agent.js';
import * as migration from './migration.js';
import type { JobStats, MigrateParams } from './migration.js';
import { BlockResizeFlags } from './runtime-flags.js';
import { addon } from './native.js';
import type { NativeDomain } from './native.js';
import type {
  DeviceFlagsObject,
  DirtyRateMode,
  DiskError,
  DomainInfo,
  DomainState,
  DomainStateName,
  DomainStats,
} from './types.js';

export function stateName(code: number): DomainStateName {
  return (STATE_NAMES[code] ?? 'nostate') as DomainStateName;
}

export function reasonName(state: DomainStateName, code: number): string {
  return STATE_REASON_NAMES[state]?.[code] ?? `unknown_${code}`;
}

/** virDomainDirtyRateCalcFlags values by mode (libvirt-domain.h). */
const DIRTY_RATE_MODE_FLAGS: Record<DirtyRateMode, number> = {
  'page-sampling': 0,
  'dirty-bitmap': 1,
  'dirty-ring': 2,
};

function deviceFlags(flags: number | DeviceFlagsObject | undefined): number {
  if (typeof flags === 'number') return flags;
  if (!flags) return DeviceModifyFlags.CURRENT;
  return (
    (flags.live ? DeviceModifyFlags.LIVE : 0) |
    (flags.config ? DeviceModifyFlags.CONFIG : 0) |
    (flags.force ? DeviceModifyFlags.FORCE : 0)
  );
}

/** 'acpi' | 'agent', or a ShutdownFlags mask for anything else (e.g. ACPI_POWER_BTN | GUEST_AGENT). */
export type ShutdownMode = 'acpi' | 'agent' | number;

function shutdownMode(mode: ShutdownMode | undefined): number {
  if (typeof mode === 'number') return mode;
  if (mode === 'acpi') return ShutdownFlags.ACPI_POWER_BTN;
  if (mode === 'agent') return ShutdownFlags.GUEST_AGENT;
  return ShutdownFlags.DEFAULT;
}

export class Domain {
  constructor(private readonly native: NativeDomain) {}

  /** The domain's name (cached by libvirt with the handle). */
  get name(): string {
    return this.native.name;
  }

  /** The domain's UUID string (cached with the handle). */
  get uuid(): string {
    return this.native.uuid;
  }

  /** The UUID; a promise for symmetry with the other calls (no daemon round trip). */
  async getUUID(): Promise<string> {
    return this.native.uuid;
  }

  /** Drops this handle now instead of at garbage collection; later calls reject with INVALID_DOMAIN. */
  free(): void {
    this.native.free();
  }

  create(opts: { paused?: boolean; autodestroy?: boolean } = {}): Promise<void> {
    const flags = (opts.paused ? CreateFlags.PAUSED : 0) | (opts.autodestroy ? CreateFlags.AUTODESTROY : 0);
    return call(this.native.create(flags));
  }

  /** Asks the guest to power off: `acpi` presses the power button, `agent` asks the guest agent. */
  shutdown(opts: { mode?: ShutdownMode } = {}): Promise<void> {
    return call(this.native.shutdown(shutdownMode(opts.mode)));
  }

  /** Stops the guest at once; `graceful` only sends SIGTERM to QEMU (no SIGKILL after the timeout). */
  destroy(opts: { graceful?: boolean } = {}): Promise<void> {
    return call(this.native.destroy(opts.graceful ? DestroyFlags.GRACEFUL : DestroyFlags.DEFAULT));
  }

  /**
   * Removes the persistent definition. `keepNvram: true` keeps the NVRAM file, `false` removes it;
   * left out, libvirt's default applies (it refuses to undefine a domain that has NVRAM).
   */
  undefine(opts: { keepNvram?: boolean } = {}): Promise<void> {
    const flags = opts.keepNvram === undefined ? 0 : opts.keepNvram ? UndefineFlags.KEEP_NVRAM : UndefineFlags.NVRAM;
    return call(this.native.undefine(flags));
  }

  suspend(): Promise<void> {
    return call(this.native.suspend());
  }

  resume(): Promise<void> {
    return call(this.native.resume());
  }

  /** Hard reset, like the reset button. */
  reset(): Promise<void> {
    return call(this.native.reset());
  }

  /** Asks the guest to reboot (`acpi` or `agent` like shutdown; hypervisor's choice by default). */
  reboot(opts: { mode?: ShutdownMode } = {}): Promise<void> {
    return call(this.native.reboot(shutdownMode(opts.mode)));
  }

  async getState(): Promise<DomainState> {
    const raw = await call(this.native.getState());
    const state = stateName(raw.state);
    return { state, reason: reasonName(state, raw.reason), stateCode: raw.state, reasonCode: raw.reason };
  }

  async getInfo(): Promise<DomainInfo> {
    const raw = await call(this.native.getInfo());
    return { ...raw, state: stateName(raw.state), stateCode: raw.state };
  }

  getXMLDesc(opts: { inactive?: boolean; secure?: boolean; migratable?: boolean } = {}): Promise<string> {
    const flags =
      (opts.inactive ? XMLFlags.INACTIVE : 0) |
      (opts.secure ? XMLFlags.SECURE : 0) |
      (opts.migratable ? XMLFlags.MIGRATABLE : 0);
    return call(this.native.getXMLDesc(flags));
  }

  /** Bulk stats of this domain (virDomainListGetStats); `types` is a StatsTypes mask, 0 = all. */
  async getStats(opts: { types?: number } = {}): Promise<DomainStats> {
    const records = await call(this.native.getStats(opts.types ?? 0, 0));
    return records[0] ?? { name: this.name, uuid: this.uuid, stats: {} };
  }

  /**
   * Starts QEMU's dirty-page rate measurement over `seconds`; the result appears later in the `dirtyrate`
   * stats group (`dirtyrate.calc_status` 2 = measured, `dirtyrate.megabytes_per_second`).
   */
  startDirtyRateCalc(seconds: number, mode: DirtyRateMode = 'page-sampling'): Promise<void> {
    const flags = DIRTY_RATE_MODE_FLAGS[mode];
    if (flags === undefined) {
      const message = `startDirtyRateCalc: mode ${JSON.stringify(mode)} is not one of ${Object.keys(DIRTY_RATE_MODE_FLAGS).join(', ')}`;
      return Promise.reject(new LibvirtError(message, ErrorCode.INVALID_ARG, ErrorDomain.NONE));
    }
    return call(addon.startDirtyRateCalc(this.native, seconds, flags));
  }

  /** Disks QEMU stopped or reported on because of an I/O error (virDomainGetDiskErrors); empty when none. */
  async getDiskErrors(): Promise<DiskError[]> {
    const names = ['none', 'unspec', 'no_space'] as const;
    const raw = await call(addon.getDiskErrors(this.native));
    return raw.map((e) => ({ disk: e.disk, error: names[e.error] ?? 'unspec', errorCode: e.error }));
  }

  /** `flags` is a DeviceModifyFlags mask or `{ live, config, force }`. */
  attachDevice(xml: string, flags?: number | DeviceFlagsObject): Promise<void> {
    return call(this.native.attachDevice(xml, deviceFlags(flags)));
  }

  detachDevice(xml: string, flags?: number | DeviceFlagsObject): Promise<void> {
    return call(this.native.detachDevice(xml, deviceFlags(flags)));
  }

  /**
   * Grows (or shrinks) a disk of the running guest to `bytes` (virDomainBlockResize); `disk` is its target
   * (`vda`) or source path.
   */
  blockResize(disk: string, bytes: number): Promise<void> {
    if (!Number.isSafeInteger(bytes) || bytes < 0) {
      return Promise.reject(new RangeError(`blockResize: bytes must be a whole number >= 0, got ${bytes}`));
    }
    return call(this.native.blockResize(disk, bytes, BlockResizeFlags.BYTES));
  }

  /** Sets the vCPU count (virDomainSetVcpusFlags); `{ live: true }` hot-plugs into the running guest. */
  setVcpus(count: number, flags?: number | DeviceFlagsObject): Promise<void> {
    if (!Number.isInteger(count) || count < 1) {
      return Promise.reject(new RangeError(`setVcpus: count must be a whole number >= 1, got ${count}`));
    }
    return call(this.native.setVcpus(count, deviceFlags(flags)));
  }

  /** Changes a device's settings in place (virDomainUpdateDeviceFlags): link state, virtio-mem size. */
  updateDevice(xml: string, flags?: number | DeviceFlagsObject): Promise<void> {
    return call(this.native.updateDevice(xml, deviceFlags(flags)));
  }

  /** Sends a guest-agent command (JSON text or object) and returns the agent's raw JSON reply. */
  qemuAgentCommand(command: string | object, timeoutSeconds: number = AgentTimeout.DEFAULT): Promise<string> {
    const json = typeof command === 'string' ? command : JSON.stringify(command);
    return call(this.native.qemuAgentCommand(json, timeoutSeconds));
  }

  /**
   * Migrates the domain (virDomainMigrateToURI3; `flags` is a MigrateFlags mask). Resolves when the migration
   * ended; the call runs on a thread of its own, so other calls go on meanwhile (job stats, abort).
   */
  migrateToURI3(destUri: string, params: MigrateParams, flags: number): Promise<void> {
    return migration.migrateToURI3(this.native, destUri, params, flags);
  }

  /** The current job's statistics; `flags` is a JobStatsFlags mask (COMPLETED: the last finished job's). */
  getJobStats(flags = 0): Promise<JobStats> {
    return migration.getJobStats(this.native, flags);
  }

  /** Aborts the current job (a migration: it fails with OPERATION_ABORTED and the guest stays here). */
  abortJob(): Promise<void> {
    return migration.abortJob(this.native);
  }

  /** Switches a running migration (started with MigrateFlags.POSTCOPY) to post-copy. */
  migrateStartPostCopy(): Promise<void> {
    return migration.startPostCopy(this.native);
  }

  migrateSetMaxDowntime(ms: number): Promise<void> {
    return migration.setMaxDowntime(this.native, ms);
  }

  /** The bandwidth cap of a migration, also while it runs (MiB/s; 0 = unlimited). */
  migrateSetMaxSpeed(mibPerSecond: number): Promise<void> {
    return migration.setMaxSpeed(this.native, mibPerSecond);
  }

  // --- guest agent (src/agent.ts, native/agent.cc) ---

  /** virDomainGetGuestInfo: `types` is a GuestInfoTypes mask (0 = everything); shaped into nested objects. */
  getGuestInfo(types = 0): Promise<GuestInfo> {
    return agent.getGuestInfo(this.native, types);
  }

  /** Freezes the guest's filesystems (all when none are named); resolves to how many were frozen. */
  fsFreeze(mountpoints: readonly string[] = []): Promise<number> {
    return agent.fsFreeze(this.native, mountpoints);
  }

  /** Thaws the guest's filesystems (all when none are named); resolves to how many were thawed. */
  fsThaw(mountpoints: readonly string[] = []): Promise<number> {
    return agent.fsThaw(this.native, mountpoints);
  }

  /** Sets the guest's clock through the agent (now by default; `sync`: from the guest's RTC). */
  setTime(opts: { time?: Date; sync?: boolean } = {}): Promise<void> {
    return agent.setTime(this.native, opts);
  }

  /** The lines of `user`'s authorized_keys in the guest. */
  authorizedSSHKeysGet(user: string): Promise<string[]> {
    return agent.authorizedSSHKeysGet(this.native, user);
  }

  /** Replaces `user`'s authorized_keys in the guest (`append` adds, `remove` deletes the keys given). */
  authorizedSSHKeysSet(
    user: string,
    keys: readonly string[],
    opts: { append?: boolean; remove?: boolean } = {},
  ): Promise<void> {
    return agent.authorizedSSHKeysSet(this.native, user, keys, opts);
  }
}
