// Calls on the launcher's cmd socket with the outcome rules of virt-handler's cmd client: a gRPC status
// other than OK is an error, and so is an answer with success:false and a message (how our launcher
// reports RPCs it does not implement yet: "unsupported: Exec"). Connecting is the same Info handshake and
// version negotiation the handler does, through the launcher package's ready-made client.
import type { ServiceError } from '@grpc/grpc-js';
import { connectLauncher } from '@virt-launcher/launcher';
import type { CmdMethod, LauncherClient, RequestOf, ResponseOf } from '@virt-launcher/launcher';

/** KubeVirt's short RPC timeout (GetDomain, GetGuestInfo, Unfreeze) and the slack added to guest timeouts. */
export const SHORT_TIMEOUT_MS = 5_000;
/** Freeze may wait for Windows VSS. */
export const EXTENDED_TIMEOUT_MS = 60_000;

export class LauncherRpcError extends Error {
  constructor(
    readonly rpc: string,
    readonly reason: string,
    /** gRPC status code when the call itself failed; undefined when the launcher answered success:false. */
    readonly grpcCode?: number,
  ) {
    super(
      grpcCode === undefined
        ? `server error. command ${rpc} failed: ${JSON.stringify(reason)}`
        : `command ${rpc} failed with code ${grpcCode}: ${reason}`,
    );
    this.name = 'LauncherRpcError';
  }
}

export class LauncherConnectError extends Error {
  constructor(
    readonly socketPath: string,
    readonly reason: string,
  ) {
    super(`failed to connect to the launcher at ${socketPath}: ${reason}`);
    this.name = 'LauncherConnectError';
  }
}

export interface RpcOutcome<K extends CmdMethod> {
  /** The decoded answer when the call returned one (even a failing one carries e.g. Exec's stdout). */
  answer?: ResponseOf<K>;
  error?: LauncherRpcError;
}

export async function connect(socketPath: string): Promise<LauncherClient> {
  try {
    return await connectLauncher(socketPath, SHORT_TIMEOUT_MS);
  } catch (err) {
    throw new LauncherConnectError(socketPath, (err as Error).message);
  }
}

function embeddedFailure(answer: unknown): { success: boolean; message: string } | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const a = answer as Record<string, unknown>;
  const r = (typeof a.response === 'object' && a.response !== null ? a.response : a) as Record<string, unknown>;
  if (typeof r.success !== 'boolean') return undefined;
  return { success: r.success, message: typeof r.message === 'string' ? r.message : '' };
}

export async function callRpc<K extends CmdMethod>(
  client: LauncherClient,
  rpc: string,
  method: K,
  request: RequestOf<K>,
  timeoutMs: number,
): Promise<RpcOutcome<K>> {
  let answer: ResponseOf<K>;
  try {
    answer = await client.call(method, request, timeoutMs);
  } catch (err) {
    const e = err as Partial<ServiceError>;
    return { error: new LauncherRpcError(rpc, e.details || e.message || String(err), e.code ?? 2) };
  }
  const embedded = embeddedFailure(answer);
  if (embedded && !embedded.success && embedded.message !== '') {
    return { answer, error: new LauncherRpcError(rpc, embedded.message) };
  }
  return { answer };
}
