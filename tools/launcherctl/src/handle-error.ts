// virt-handler's reading of a command's outcome (packages/launcher/docs/cmd-contract.md#errors, "handleError"), so an operator sees the
// same text the handler would log:
//   1. disconnected (EOF, ECONNRESET, shutdown, Canceled) and Unimplemented: the gRPC error as is;
//   2. any other non-OK status: `command <Name> failed with <Code>: <err>`;
//   3. OK with success=false and a message: `server error. command <Name> failed: "<message>"`;
//   4. anything else is success (even success=false with an empty message).
import { status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { CommandError } from './errors.js';

// Index = numeric status code; names as gRPC-Go prints them (codes.Code.String()).
const GO_CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

export function goCodeName(code: number): string {
  return GO_CODE_NAMES[code] ?? `Code(${code})`;
}

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number';
}

/** gRPC-Go's rendering of a status error. */
export function rpcErrorText(err: ServiceError): string {
  return `rpc error: code = ${goCodeName(err.code)} desc = ${err.details}`;
}

/** The connection went away under the call (gRPC-Go's IsDisconnected family). */
export function isDisconnected(err: ServiceError): boolean {
  if (err.code === status.CANCELLED) return true;
  return (
    err.code === status.UNAVAILABLE &&
    /\bEOF\b|ECONNRESET|EPIPE|Connection dropped|shut ?down|closed/i.test(err.details)
  );
}

/** Rule 1 and 2: a call that ended with a gRPC error. */
export function interpretCallError(command: string, err: ServiceError): CommandError {
  const code = goCodeName(err.code);
  if (isDisconnected(err) || err.code === status.UNIMPLEMENTED) {
    return new CommandError(command, rpcErrorText(err), code);
  }
  return new CommandError(command, `command ${command} failed with ${code}: ${rpcErrorText(err)}`, code);
}

export interface ResponseStatus {
  success: boolean;
  message: string;
}

/** Rule 3 and 4: a call that returned; undefined means success. */
export function interpretResponse(command: string, response: ResponseStatus | undefined): CommandError | undefined {
  if (response && !response.success && response.message !== '') {
    // Go's %q: a double-quoted string with escapes; JSON's quoting matches it for printable text.
    return new CommandError(command, `server error. command ${command} failed: ${JSON.stringify(response.message)}`);
  }
  return undefined;
}
