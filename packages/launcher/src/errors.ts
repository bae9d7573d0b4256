// Typed errors of the launcher, and the one place that turns any error into the message text KubeVirt's
// handler expects in Response.message (docs/cmd-contract.md#errors).
import { asLibvirtError, hasLibvirtCode } from './adapters/libvirt.js';

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

/** libvirt's "domain not found" (ErrorCode.NO_DOMAIN). */
export function isNoDomain(err: unknown): boolean {
  return hasLibvirtCode(err, 'NO_DOMAIN');
}

/** The text for Response.message: libvirt errors in KubeVirt's exact format, others as their message. */
export function errorMessage(err: unknown): string {
  const lv = asLibvirtError(err);
  if (lv) return lv.describe();
  if (err instanceof Error) return err.message;
  return String(err);
}
