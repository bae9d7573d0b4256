// Typed failures of launcherctl. The exit code follows the class: UsageError -> 2, every other -> 1.

/** The command line or an input file is wrong: nothing was sent to the launcher. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The socket path does not lead to a listening launcher. */
export class SocketError extends Error {
  constructor(
    readonly socketPath: string,
    readonly reason: 'missing' | 'not-a-socket' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'SocketError';
  }
}

/** The Info handshake failed (no answer, or no version both sides speak). */
export class HandshakeError extends Error {
  constructor(
    message: string,
    readonly serverVersions?: number[],
  ) {
    super(message);
    this.name = 'HandshakeError';
  }
}

/** A command reached the launcher and failed, worded the way virt-handler's handleError words it. */
export class CommandError extends Error {
  constructor(
    readonly command: string,
    message: string,
    /** Go spelling of the gRPC status code, absent when the failure came in the response body. */
    readonly grpcCode?: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}
