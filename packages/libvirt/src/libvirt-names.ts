// Names of libvirt's numeric domain states, reasons and event kinds, from the enums in
// <libvirt/libvirt-domain.h> of libvirt 9.0, lower-cased without their prefix; the index is libvirt's number.

// virDomainState
export const STATE_NAMES: readonly string[] = [
  'nostate',
  'running',
  'blocked',
  'paused',
  'shutdown',
  'shutoff',
  'crashed',
  'pmsuspended',
];

// virDomain<State>Reason, by state name.
export const STATE_REASON_NAMES: Readonly<Record<string, readonly string[]>> = {
  nostate: ['unknown'],
  running: [
    'unknown',
    'booted',
    'migrated',
    'restored',
    'from_snapshot',
    'unpaused',
    'migration_canceled',
    'save_canceled',
    'wakeup',
    'crashed',
    'postcopy',
    'postcopy_failed',
  ],
  blocked: ['unknown'],
  paused: [
    'unknown',
    'user',
    'migration',
    'save',
    'dump',
    'ioerror',
    'watchdog',
    'from_snapshot',
    'shutting_down',
    'snapshot',
    'crashed',
    'starting_up',
    'postcopy',
    'postcopy_failed',
  ],
  shutdown: ['unknown', 'user'],
  shutoff: ['unknown', 'shutdown', 'destroyed', 'crashed', 'migrated', 'saved', 'failed', 'from_snapshot', 'daemon'],
  crashed: ['unknown', 'panicked'],
  pmsuspended: ['unknown'],
};

// virDomainEventType
export const LIFECYCLE_EVENT_NAMES: readonly string[] = [
  'defined',
  'undefined',
  'started',
  'suspended',
  'resumed',
  'stopped',
  'shutdown',
  'pmsuspended',
  'crashed',
];

// virDomainEvent<Type>DetailType, by event name.
export const LIFECYCLE_DETAIL_NAMES: Readonly<Record<string, readonly string[]>> = {
  defined: ['added', 'updated', 'renamed', 'from_snapshot'],
  undefined: ['removed', 'renamed'],
  started: ['booted', 'migrated', 'restored', 'from_snapshot', 'wakeup'],
  suspended: [
    'paused',
    'migrated',
    'ioerror',
    'watchdog',
    'restored',
    'from_snapshot',
    'api_error',
    'postcopy',
    'postcopy_failed',
  ],
  resumed: ['unpaused', 'migrated', 'from_snapshot', 'postcopy', 'postcopy_failed'],
  stopped: ['shutdown', 'destroyed', 'crashed', 'migrated', 'saved', 'failed', 'from_snapshot'],
  shutdown: ['finished', 'guest', 'host'],
  pmsuspended: ['memory', 'disk'],
  crashed: ['panicked', 'crashloaded'],
};

// virConnectCloseReason
export const CLOSE_REASON_NAMES: readonly string[] = ['error', 'eof', 'keepalive', 'client'];

// virConnectDomainEventAgentLifecycleState (0 is not used by libvirt)
export const AGENT_STATE_NAMES: readonly string[] = ['unknown', 'connected', 'disconnected'];

// virConnectDomainEventAgentLifecycleReason
export const AGENT_REASON_NAMES: readonly string[] = ['unknown', 'domain_started', 'channel'];
