// Turns a partial map of async RPC handlers into a full grpc-js implementation of kubevirt.cmd.v1.Cmd.
// Every RPC not (yet) built answers success:false "unsupported: <Rpc>" — an explicit state the handler
// reports, never a fake success — and a thrown error becomes success:false with KubeVirt's message text.
import { status } from '@grpc/grpc-js';
import type { handleUnaryCall, UntypedServiceImplementation } from '@grpc/grpc-js';
import { CmdService } from '../gen/kubevirt/cmd/v1/cmd.js';
import type { Response } from '../gen/kubevirt/cmd/v1/cmd.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import { vmiLogFields } from './vmi-log.js';

export type CmdMethods = typeof CmdService;
export type CmdMethod = keyof CmdMethods;
export type RequestOf<K extends CmdMethod> = ReturnType<CmdMethods[K]['requestDeserialize']>;
export type ResponseOf<K extends CmdMethod> = ReturnType<CmdMethods[K]['responseDeserialize']>;
export type CmdHandlers = { [K in CmdMethod]?: (request: RequestOf<K>) => Promise<ResponseOf<K>> };

/** The wire name of a method, e.g. `SyncVirtualMachine`. */
export function rpcName(method: CmdMethod): string {
  return CmdService[method].path.split('/').pop() ?? method;
}

export const ok = (): Response => ({ success: true, message: '' });

/**
 * Thrown by a handler whose KubeVirt counterpart returns a Go error beside its response (Exec, GuestPing): the
 * call then ends with a gRPC status (Unknown, as grpc-go makes of a plain error) instead of success:false.
 */
export class GrpcStatusError extends Error {
  constructor(
    message: string,
    readonly code: number = status.UNKNOWN,
  ) {
    super(message);
    this.name = 'GrpcStatusError';
  }
}

/** A failure of the right response type: the plain Response or the wrapper carrying one in `response`. */
export function failure<K extends CmdMethod>(method: K, message: string): ResponseOf<K> {
  // Decoding an empty buffer yields the message with every field at its default: a generic constructor.
  const empty = CmdService[method].responseDeserialize(Buffer.alloc(0)) as unknown as Record<string, unknown>;
  if ('response' in empty) empty.response = { success: false, message };
  else Object.assign(empty, { success: false, message });
  return empty as unknown as ResponseOf<K>;
}

export function buildCmdImplementation(handlers: CmdHandlers): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {};
  for (const method of Object.keys(CmdService) as CmdMethod[]) {
    const handler = handlers[method] as ((req: unknown) => Promise<unknown>) | undefined;
    const unary: handleUnaryCall<unknown, unknown> = (call, callback) => {
      if (!handler) {
        callback(null, failure(method, `unsupported: ${rpcName(method)}`));
        return;
      }
      Promise.resolve()
        .then(() => handler(call.request))
        .then(
          (res) => callback(null, res),
          (err: unknown) => {
            log.error(`${rpcName(method)} failed`, { ...vmiLogFields(call.request), reason: errorMessage(err) });
            if (err instanceof GrpcStatusError) {
              callback({ code: err.code, details: err.message }, null);
              return;
            }
            callback(null, failure(method, errorMessage(err)));
          },
        );
    };
    impl[method] = unary;
  }
  return impl;
}
