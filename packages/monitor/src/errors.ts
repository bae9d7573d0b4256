// Typed errors of the monitor. Each carries the facts a caller needs to decide what to do.

/** The command line could not be understood (e.g. a flag that needs a value got none). */
export class MonitorUsageError extends Error {
  override readonly name = 'MonitorUsageError';
  constructor(
    message: string,
    readonly argument: string,
  ) {
    super(message);
  }
}

/** The managed command (virt-launcher) could not be started. */
export class CommandStartError extends Error {
  override readonly name = 'CommandStartError';
  constructor(
    readonly command: string,
    override readonly cause: Error,
  ) {
    super(`failed to run ${command}: ${cause.message}`);
  }
}

/** The native reaper addon failed to load or a reaper system call failed. */
export class ReaperError extends Error {
  override readonly name = 'ReaperError';
  constructor(
    readonly operation: string,
    message: string,
    readonly errno?: number,
  ) {
    super(`${operation}: ${message}`);
  }
}

/** Signalling a surviving QEMU failed for a reason other than it being gone already. */
export class QemuSignalError extends Error {
  override readonly name = 'QemuSignalError';
  constructor(
    readonly pid: number,
    readonly signal: NodeJS.Signals,
    override readonly cause: Error,
  ) {
    super(`cannot send ${signal} to QEMU pid ${pid}: ${cause.message}`);
  }
}
