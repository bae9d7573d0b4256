// How a pod run ends early: the CLI maps each of these to its own message and exit code.

/** A Ctrl-C (or SIGTERM) before the guest ran: everything made so far was undone. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
}

/** SyncVirtualMachine answered success:false: the launcher's reason, printed once. */
export class StartFailedError extends Error {
  override name = 'StartFailedError';
}
