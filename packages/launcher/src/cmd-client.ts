// The one client of the launcher's cmd socket, used by the self-ping, the tests and the tools (launcherctl,
// pod runner, pod programs, bench). It opens the socket the way virt-handler's cmd client does: a dial bounded
// by a short timeout, CmdInfo.Info with its own deadline, the highest version both sides know, then v1 calls
// on the same channel (one connection, not one per service).
import type { Client } from '@grpc/grpc-js';
import { CmdInfoService } from './gen/kubevirt/cmd/info/info.js';
import { CmdService } from './gen/kubevirt/cmd/v1/cmd.js';
import type { CmdMethod, RequestOf, ResponseOf } from './cmd-server/rpc-table.js';
import { callUnary, openChannel, waitForReady } from './grpc/unary.js';
import type { UnaryMethod } from './grpc/unary.js';

export const clientCmdVersions = [1];
/** virt-handler's bound on dialing the socket. */
export const DIAL_TIMEOUT_MS = 2_000;
/** virt-handler's short timeout: the Info handshake and calls that take no longer. */
export const DEFAULT_CALL_TIMEOUT_MS = 5_000;

export class VersionMismatchError extends Error {
  constructor(
    readonly server: number[],
    readonly client: number[],
  ) {
    super(`no compatible version found, server: [${server.join(' ')}], client: [${client.join(' ')}]`);
    this.name = 'VersionMismatchError';
  }
}

/** The socket could not be dialed, or its Info handshake failed; `cause` is the grpc-js error. */
export class LauncherConnectError extends Error {
  constructor(
    readonly socketPath: string,
    readonly stage: 'dial' | 'info',
    override readonly cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      stage === 'dial'
        ? `cannot connect to ${socketPath}: ${reason}`
        : `could not check cmd server version at ${socketPath}: ${reason}`,
    );
    this.name = 'LauncherConnectError';
  }
}

/** Highest version the server offers that the client also knows (KubeVirt's negotiation). */
export function negotiateVersion(server: number[], client: number[]): number {
  const match = [...server].sort((a, b) => b - a).find((v) => client.includes(v));
  if (match === undefined) throw new VersionMismatchError(server, client);
  return match;
}

export interface ConnectOptions {
  /** Bound on dialing the socket (default 2 s). */
  dialTimeoutMs?: number;
  /** Deadline of the Info handshake and default deadline of every call (default 5 s). */
  callTimeoutMs?: number;
}

export interface LauncherClient {
  readonly socketPath: string;
  /** Versions the server offered in Info, and the one chosen. */
  readonly serverVersions: number[];
  readonly version: number;
  /** One v1 RPC with its own deadline; rejects with the grpc-js ServiceError. */
  call<K extends CmdMethod>(method: K, request: RequestOf<K>, timeoutMs?: number): Promise<ResponseOf<K>>;
  close(): void;
}

function methodOf<K extends CmdMethod>(method: K): UnaryMethod<RequestOf<K>, ResponseOf<K>> {
  // Each entry of the generated table is a definition of exactly these types; the index type loses that link.
  return CmdService[method] as unknown as UnaryMethod<RequestOf<K>, ResponseOf<K>>;
}

/**
 * Dials `socketPath`, does the Info handshake and returns a client for the negotiated version. A number is
 * the call timeout (kept for callers that only set that). Throws LauncherConnectError or VersionMismatchError.
 */
export async function connectLauncher(
  socketPath: string,
  options: ConnectOptions | number = {},
): Promise<LauncherClient> {
  const opts = typeof options === 'number' ? { callTimeoutMs: options } : options;
  const callTimeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const dialTimeoutMs = opts.dialTimeoutMs ?? Math.min(DIAL_TIMEOUT_MS, callTimeoutMs);
  const channel: Client = openChannel(socketPath);
  try {
    await waitForReady(channel, dialTimeoutMs).catch((err: unknown) => {
      throw new LauncherConnectError(socketPath, 'dial', err);
    });
    const info = await callUnary(channel, CmdInfoService.info, {}, callTimeoutMs).catch((err: unknown) => {
      throw new LauncherConnectError(socketPath, 'info', err);
    });
    const serverVersions = info.supportedCmdVersions;
    const version = negotiateVersion(serverVersions, clientCmdVersions);
    return {
      socketPath,
      serverVersions,
      version,
      call: (method, request, ms = callTimeoutMs) => callUnary(channel, methodOf(method), request, ms),
      close: () => channel.close(),
    };
  } catch (err) {
    channel.close();
    throw err;
  }
}
