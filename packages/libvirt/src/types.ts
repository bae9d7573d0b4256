// Value types of the face: states, events and results with libvirt's numbers turned into names.

export type DomainStateName =
  'nostate' | 'running' | 'blocked' | 'paused' | 'shutdown' | 'shutoff' | 'crashed' | 'pmsuspended';

export type LifecycleEventName =
  'defined' | 'undefined' | 'started' | 'suspended' | 'resumed' | 'stopped' | 'shutdown' | 'pmsuspended' | 'crashed';

export interface DomainState {
  state: DomainStateName;
  /** libvirt's reason, lower case without prefix: `booted`, `user`, `destroyed`, … */
  reason: string;
  stateCode: number;
  reasonCode: number;
}

export interface DomainInfo {
  state: DomainStateName;
  stateCode: number;
  maxMemKiB: number;
  memoryKiB: number;
  nrVirtCpu: number;
  cpuTimeNs: number;
}

export interface DomainStats {
  name: string;
  uuid: string;
  /** libvirt's typed parameters by field name (`state.state`, `balloon.current`, …); 64-bit counters are Numbers. */
  stats: Record<string, number | string | boolean>;
}

export interface DomainEventBase {
  name: string;
  uuid: string;
}

export interface DomainLifecycleEvent extends DomainEventBase {
  event: LifecycleEventName;
  /** The detail's name for that event, e.g. `booted`, `paused`, `destroyed`, `finished`. */
  detail: string;
  eventCode: number;
  detailCode: number;
}

export interface DeviceEvent extends DomainEventBase {
  /** The device alias, e.g. `ua-disk1`. */
  alias: string;
}

export interface AgentLifecycleEvent extends DomainEventBase {
  state: 'connected' | 'disconnected' | 'unknown';
  /** `unknown`, `domain_started` or `channel`. */
  reason: string;
  stateCode: number;
  reasonCode: number;
}

export interface MemoryDeviceSizeEvent extends DomainEventBase {
  alias: string;
  /** The device's new current size. */
  sizeKiB: number;
}

export interface JobCompletedEvent extends DomainEventBase {
  /** libvirt's job statistics (typed parameters by field name). */
  stats: Record<string, number | string | boolean>;
}

/** What libvirt did about an I/O error (virDomainEventIOErrorAction). */
export type IoErrorAction = 'none' | 'pause' | 'report';

export interface IoErrorEvent extends DomainEventBase {
  /** The disk's alias, e.g. `ua-disk1`. */
  alias: string;
  /** The disk's source (file or device path). */
  srcPath: string;
  action: IoErrorAction;
  actionCode: number;
  /** QEMU's reason: `enospc` when the disk is full, else another short text (may be empty). */
  reason: string;
}

export interface DiskError {
  /** The disk's target, e.g. `vda`. */
  disk: string;
  /** libvirt's virDomainDiskErrorCode by name: `unspec` (an I/O error) or `no_space`. */
  error: 'none' | 'unspec' | 'no_space';
  errorCode: number;
}

/** virDomainDirtyRateCalcFlags: how QEMU measures (page sampling is the only mode TCG offers). */
export type DirtyRateMode = 'page-sampling' | 'dirty-bitmap' | 'dirty-ring';

/** Why the daemon went away: libvirt's virConnectCloseReason in lower case. */
export type CloseReason = 'error' | 'eof' | 'keepalive' | 'client';

export interface ConnectionEvents {
  domainEvent: [DomainLifecycleEvent];
  reboot: [DomainEventBase];
  deviceAdded: [DeviceEvent];
  deviceRemoved: [DeviceEvent];
  agentLifecycle: [AgentLifecycleEvent];
  memoryDeviceSizeChange: [MemoryDeviceSizeEvent];
  jobCompleted: [JobCompletedEvent];
  ioError: [IoErrorEvent];
  close: [CloseReason];
}

export interface ConnectOptions {
  /** Open read-only (virConnectOpenReadOnly semantics). */
  readOnly?: boolean;
  /** Seconds between keepalive probes; 0 disables. Default 5. Only remote URIs use it. */
  keepAliveInterval?: number;
  /** Unanswered probes before the connection is declared dead. Default 3. */
  keepAliveCount?: number;
}

export interface DeviceFlagsObject {
  live?: boolean;
  config?: boolean;
  force?: boolean;
}
