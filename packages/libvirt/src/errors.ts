// Typed errors: every failure of a libvirt call surfaces as a LibvirtError with libvirt's own numbers.
import { ErrorCode, ErrorDomain } from './error-codes.js';
import type { NativeError } from './native.js';

const codeNames = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));
const domainNames = new Map<number, string>(Object.entries(ErrorDomain).map(([name, code]) => [code, name]));

/** The symbolic name of a libvirt error code (`NO_DOMAIN` for 42), or `UNKNOWN_<n>`. */
export function errorCodeName(code: number): string {
  return codeNames.get(code) ?? `UNKNOWN_${code}`;
}

export class LibvirtError extends Error {
  /** libvirt's virErrorNumber, e.g. 42 (ErrorCode.NO_DOMAIN). */
  readonly code: number;
  /** libvirt's virErrorDomain: which part of libvirt raised it, e.g. 10 (ErrorDomain.QEMU). */
  readonly domain: number;
  /** 1 warning, 2 error. */
  readonly level: number;
  readonly codeName: string;
  readonly domainName: string;

  constructor(message: string, code: number, domain: number, level = 2) {
    super(message);
    this.name = 'LibvirtError';
    this.code = code;
    this.domain = domain;
    this.level = level;
    this.codeName = errorCodeName(code);
    this.domainName = domainNames.get(domain) ?? `UNKNOWN_${domain}`;
  }

  /** KubeVirt's rendering of a libvirt error, used in command-server responses. */
  describe(): string {
    return `LibvirtError(Code=${this.code}, Domain=${this.domain}, Message='${this.message}')`;
  }
}

/** Turns whatever the addon rejected with into a LibvirtError (non-libvirt failures become INTERNAL_ERROR). */
export function toLibvirtError(err: unknown): LibvirtError {
  if (err instanceof LibvirtError) return err;
  const native = err as NativeError;
  const message = native instanceof Error ? native.message : String(err);
  return new LibvirtError(
    message,
    native?.libvirtCode ?? ErrorCode.INTERNAL_ERROR,
    native?.libvirtDomain ?? ErrorDomain.NONE,
    native?.libvirtLevel ?? 2,
  );
}

/** Awaits a native call and rethrows its failure as a LibvirtError. */
export async function call<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (err) {
    throw toLibvirtError(err);
  }
}
