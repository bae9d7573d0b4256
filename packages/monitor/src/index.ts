// The face of @virt-launcher/monitor: everything other packages may use is exported here.
export { runMonitor, FORWARDED_SIGNALS, SIGNALLED_EXIT_CODE, type MonitorOptions } from './monitor.js';
export {
  OrphanReaper,
  becomeSubreaper,
  isSubreaper,
  zombieChildren,
  reapPid,
  reapOrphans,
  type ReapResult,
  type ReaperOptions,
} from './reaper.js';
export { SignalGate, installSignalGate, INSPECTOR_SIGNAL } from './signals.js';
export { closeInspector, withoutInspectorOptions, splitNodeOptions } from './inspector.js';
export { ReapLog, DEFAULT_REAP_LINES_PER_WINDOW, DEFAULT_REAP_LOG_WINDOW_MS, type ReapLogOptions } from './reap-log.js';
export { findQemuProcesses, stopQemuSurvivors, type QemuProcess, type StopQemuOutcome } from './qemu.js';
export { terminateIstioProxy, istioProxyPresent, type IstioOptions } from './istio.js';
export { dumpLogs, removeContainerDiskSockets } from './cleanup.js';
export { parseArgs, resolveVerbosity, DEFAULT_COMMAND, DEFAULT_CONTAINER_DISK_DIR, type ParsedArgs } from './args.js';
export { createLogger, COMPONENT, type Logger, type LogLevel } from './log.js';
export { MonitorUsageError, CommandStartError, ReaperError, QemuSignalError } from './errors.js';
