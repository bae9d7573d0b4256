// One connection to a launcher's cmd socket, opened the way virt-handler's NewClient opens it: a blocking
// dial bounded by 2 s, then CmdInfo.Info bounded by 5 s and KubeVirt's version negotiation, then v1 calls
// on the same channel. The client is the launcher package's connectLauncher; this file adds the socket checks
// and launcherctl's typed errors.
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { connectLauncher, LauncherConnectError, VersionMismatchError } from '@virt-launcher/launcher';
import type { CmdMethod, LauncherClient, RequestOf, ResponseOf } from '@virt-launcher/launcher';
import { HandshakeError, SocketError } from './errors.js';
import { isServiceError, rpcErrorText } from './handle-error.js';

export const DIAL_TIMEOUT_MS = 2_000;
export const INFO_TIMEOUT_MS = 5_000;
/** virt-handler creates this file beside the socket when it gives up on a launcher. */
export const UNRESPONSIVE_MARKER = 'launcher-unresponsive';

export interface SocketFacts {
  /** virt-handler has marked this launcher unresponsive (it would not talk to it). */
  markedUnresponsive: boolean;
}

/** Fails early and clearly when there is nothing to dial, instead of a gRPC timeout. */
export async function checkSocket(socketPath: string): Promise<SocketFacts> {
  try {
    const st = await stat(socketPath);
    if (!st.isSocket()) {
      throw new SocketError(socketPath, 'not-a-socket', `${socketPath} is not a unix socket`);
    }
  } catch (err) {
    if (err instanceof SocketError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file (is the launcher running?)' : (code ?? String(err));
    throw new SocketError(socketPath, 'missing', `no launcher socket at ${socketPath}: ${why}`);
  }
  const markedUnresponsive = await stat(join(dirname(socketPath), UNRESPONSIVE_MARKER)).then(
    () => true,
    () => false,
  );
  return { markedUnresponsive };
}

export class LauncherConnection {
  private constructor(private readonly client: LauncherClient) {}

  get socketPath(): string {
    return this.client.socketPath;
  }

  get serverVersions(): number[] {
    return this.client.serverVersions;
  }

  get version(): number {
    return this.client.version;
  }

  /** Opens the socket with the launcher's own client; its failures become launcherctl's typed errors. */
  static async open(socketPath: string): Promise<LauncherConnection> {
    try {
      const client = await connectLauncher(socketPath, {
        dialTimeoutMs: DIAL_TIMEOUT_MS,
        callTimeoutMs: INFO_TIMEOUT_MS,
      });
      return new LauncherConnection(client);
    } catch (err) {
      throw asConnectFailure(socketPath, err);
    }
  }

  /** One v1 RPC; rejects with the grpc-js ServiceError so the caller can apply handleError's rules. */
  call<K extends CmdMethod>(method: K, request: RequestOf<K>, timeoutMs: number): Promise<ResponseOf<K>> {
    return this.client.call(method, request, timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}

function asConnectFailure(socketPath: string, err: unknown): Error {
  if (err instanceof VersionMismatchError) return new HandshakeError(err.message, err.server);
  if (err instanceof LauncherConnectError && err.stage === 'dial') {
    const why = err.cause instanceof Error ? err.cause.message : String(err.cause);
    return new SocketError(socketPath, 'unreachable', `cannot connect to ${socketPath}: ${why}`);
  }
  if (err instanceof LauncherConnectError) {
    const text = isServiceError(err.cause) ? rpcErrorText(err.cause) : String(err.cause);
    return new HandshakeError(`could not check cmd server version: ${text}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}
