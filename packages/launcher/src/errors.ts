// Typed errors of the launcher, and the one place that turns any error into the message text KubeVirt's
// handler expects in Response.message (docs/cmd-contract.md#errors).

/** A fatal condition: KubeVirt panics (exit code 2) where the launcher throws this. */
export class LauncherPanic extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'LauncherPanic';
  }
}

/** A VMI request the launcher refuses: bad JSON, hostile names, unsupported features. */
export class InvalidRequestError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'InvalidRequestError';
  }
}

/** A libvirt daemon failed to start or keep running; carries its stderr tail and exit reason. */
export class DaemonError extends Error {
  constructor(
    readonly daemon: string,
    message: string,
    readonly stderrTail: string,
  ) {
    super(`${daemon}: ${message}${stderrTail ? `; its stderr: ${stderrTail}` : ''}`);
    this.name = 'DaemonError';
  }
}

interface LibvirtLike {
  code: number;
  domain: number;
  message: string;
}

function isLibvirtError(err: unknown): err is LibvirtLike {
  return (
    err instanceof Error &&
    err.name === 'LibvirtError' &&
    typeof (err as unknown as LibvirtLike).code === 'number' &&
    typeof (err as unknown as LibvirtLike).domain === 'number'
  );
}

/** libvirt's "domain not found" (VIR_ERR_NO_DOMAIN). */
export function isNoDomain(err: unknown): boolean {
  return isLibvirtError(err) && err.code === 42;
}

/** The text for Response.message: libvirt errors in KubeVirt's exact format, others as their message. */
export function errorMessage(err: unknown): string {
  if (isLibvirtError(err)) {
    return `LibvirtError(Code=${err.code}, Domain=${err.domain}, Message='${err.message}')`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
