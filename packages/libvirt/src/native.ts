// Loads the compiled addon (native/, built by `node-gyp rebuild` into build/Release) and types its surface.
// Both src/ (tests) and dist/ (consumers) sit one level below the package root, so one relative path serves.
import { createRequire } from 'node:module';

/** A rejection from the addon: a plain Error carrying libvirt's numbers. */
export interface NativeError extends Error {
  libvirtCode?: number;
  libvirtDomain?: number;
  libvirtLevel?: number;
}

export interface NativeEventPayload {
  name: string;
  uuid: string;
  first: number;
  second: number;
  text: string;
  number: number;
  params: Record<string, number | string | boolean>;
}

export type NativeEventKind =
  | 'lifecycle'
  | 'reboot'
  | 'deviceAdded'
  | 'deviceRemoved'
  | 'agentLifecycle'
  | 'memoryDeviceSizeChange'
  | 'jobCompleted'
  | 'ioError'
  | 'close';

export interface NativeStatsRecord {
  name: string;
  uuid: string;
  stats: Record<string, number | string | boolean>;
}

export interface NativeDomain {
  readonly name: string;
  readonly uuid: string;
  free(): void;
  create(flags: number): Promise<void>;
  shutdown(flags: number): Promise<void>;
  destroy(flags: number): Promise<void>;
  undefine(flags: number): Promise<void>;
  suspend(): Promise<void>;
  resume(): Promise<void>;
  reset(): Promise<void>;
  reboot(flags: number): Promise<void>;
  getState(): Promise<{ state: number; reason: number }>;
  getInfo(): Promise<{ state: number; maxMemKiB: number; memoryKiB: number; nrVirtCpu: number; cpuTimeNs: number }>;
  getXMLDesc(flags: number): Promise<string>;
  getStats(stats: number, flags: number): Promise<NativeStatsRecord[]>;
  attachDevice(xml: string, flags: number): Promise<void>;
  detachDevice(xml: string, flags: number): Promise<void>;
  qemuAgentCommand(command: string, timeoutSeconds: number): Promise<string>;
  // native/agent.cc: guest-agent calls.
  getGuestInfo(types: number, flags: number): Promise<Record<string, number | string | boolean>>;
  fsFreeze(mountpoints: string[], flags: number): Promise<number>;
  fsThaw(mountpoints: string[], flags: number): Promise<number>;
  setTime(seconds: number, nseconds: number, flags: number): Promise<void>;
  authorizedSSHKeysGet(user: string, flags: number): Promise<string[]>;
  authorizedSSHKeysSet(user: string, keys: string[], flags: number): Promise<void>;
  // native/runtime.cc: calls that change a running domain.
  blockResize(disk: string, size: number, flags: number): Promise<void>;
  setVcpus(count: number, flags: number): Promise<void>;
  updateDevice(xml: string, flags: number): Promise<void>;
}

export interface NativeConnection {
  close(): Promise<void>;
  ref(): void;
  unref(): void;
  isAlive(): Promise<boolean>;
  getLibVersion(): Promise<number>;
  getVersion(): Promise<number>;
  getHostname(): Promise<string>;
  getCapabilities(): Promise<string>;
  listAllDomains(flags: number): Promise<NativeDomain[]>;
  defineXML(xml: string, flags: number): Promise<NativeDomain>;
  lookupByName(name: string): Promise<NativeDomain>;
  lookupByUUID(uuid: string): Promise<NativeDomain>;
  getAllDomainStats(stats: number, flags: number): Promise<NativeStatsRecord[]>;
}

/** Live native objects; each returns to its baseline once handles are freed. */
export interface HandleCounts {
  /** Domain references held by calls in flight or results not yet wrapped. */
  domainRefs: number;
  /** Domain objects still owning a libvirt handle. */
  domainObjects: number;
  /** Connections not yet closed. */
  connections: number;
}

/** native/migration.cc: live migration calls, each taking a NativeDomain. */
export interface NativeMigration {
  migrateToURI3(domain: NativeDomain, destUri: string, params: object, flags: number): Promise<void>;
  getJobStats(
    domain: NativeDomain,
    flags: number,
  ): Promise<{ type: number; stats: Record<string, number | string | boolean> }>;
  abortJob(domain: NativeDomain): Promise<void>;
  startPostCopy(domain: NativeDomain): Promise<void>;
  setMaxDowntime(domain: NativeDomain, ms: number): Promise<void>;
  setMaxSpeed(domain: NativeDomain, mibPerSecond: number): Promise<void>;
}

export interface NativeAddon {
  migration: NativeMigration;
  handleCounts(): HandleCounts;
  /** virDomainStartDirtyRateCalc on `domain` (a NativeDomain), off the JS thread. */
  startDirtyRateCalc(domain: NativeDomain, seconds: number, flags: number): Promise<void>;
  /** virDomainGetDiskErrors on `domain`: each disk target with libvirt's virDomainDiskErrorCode. */
  getDiskErrors(domain: NativeDomain): Promise<Array<{ disk: string; error: number }>>;
  connect(
    uri: string,
    readOnly: boolean,
    keepAliveInterval: number,
    keepAliveCount: number,
    onEvent: (kind: NativeEventKind, payload: NativeEventPayload) => void,
  ): Promise<NativeConnection>;
}

const require = createRequire(import.meta.url);

export const addon = require('../build/Release/virt_native.node') as NativeAddon;
