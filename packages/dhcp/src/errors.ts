// Typed errors of @virt-launcher/dhcp. Callers branch on the class, never on message text.

/** A packet could not be decoded: too short, bad cookie, truncated option, ... */
export class DhcpDecodeError extends Error {
  override readonly name = 'DhcpDecodeError';
  constructor(
    message: string,
    /** Byte offset in the packet where decoding gave up. */
    readonly offset: number,
  ) {
    super(message);
  }
}

/** A value cannot be put on the wire (name too long, prefix out of range, ...). */
export class DhcpEncodeError extends Error {
  override readonly name = 'DhcpEncodeError';
  constructor(
    message: string,
    /** Option code concerned, 0 for the fixed header. */
    readonly option: number,
  ) {
    super(message);
  }
}

/** The DhcpServerConfig (or CLI flags) cannot describe a working server. */
export class DhcpConfigError extends Error {
  override readonly name = 'DhcpConfigError';
  constructor(
    message: string,
    /** Config field at fault, e.g. "v4.clientIpCidr". */
    readonly field: string,
  ) {
    super(message);
  }
}

/** The bound socket could not be created or used. */
export class DhcpSocketError extends Error {
  override readonly name = 'DhcpSocketError';
  constructor(
    message: string,
    readonly interfaceName: string,
    /** Failing system call, e.g. "setsockopt(SO_BINDTODEVICE)" or "bind". */
    readonly syscall: string,
    readonly errno: number,
  ) {
    super(message);
  }
}
