// One connection to a launcher's cmd socket, opened the way virt-handler's NewClient opens it: a blocking
// dial bounded by 2 s, then CmdInfo.Info bounded by 5 s and KubeVirt's version negotiation, then v1 calls
// on the same channel. The generated service definitions come from the launcher package's face.
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  CmdInfoService,
  CmdService,
  clientCmdVersions,
  negotiateVersion,
  VersionMismatchError,
} from '@virt-launcher/launcher';
import type { CmdMethod, RequestOf, ResponseOf } from '@virt-launcher/launcher';
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

function unary<Req, Res>(
  client: Client,
  def: { path: string; requestSerialize: (v: Req) => Buffer; responseDeserialize: (b: Buffer) => Res },
  request: Req,
  timeoutMs: number,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      request,
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null, res?: Res) => (err || res === undefined ? reject(err) : resolve(res)),
    );
  });
}

export class LauncherConnection {
  private constructor(
    private readonly client: Client,
    readonly socketPath: string,
    readonly serverVersions: number[],
    readonly version: number,
  ) {}

  static async open(socketPath: string): Promise<LauncherConnection> {
    // The handler sets :authority to localhost; a unix path would otherwise become the authority.
    const client = new Client(`unix://${socketPath}`, credentials.createInsecure(), {
      'grpc.default_authority': 'localhost',
    });
    try {
      await new Promise<void>((resolve, reject) =>
        client.waitForReady(Date.now() + DIAL_TIMEOUT_MS, (err) => (err ? reject(err) : resolve())),
      );
    } catch (err) {
      client.close();
      throw new SocketError(socketPath, 'unreachable', `cannot connect to ${socketPath}: ${(err as Error).message}`);
    }
    let serverVersions: number[];
    try {
      ({ supportedCmdVersions: serverVersions } = await unary(client, CmdInfoService.info, {}, INFO_TIMEOUT_MS));
    } catch (err) {
      client.close();
      const text = isServiceError(err) ? rpcErrorText(err) : String(err);
      throw new HandshakeError(`could not check cmd server version: ${text}`);
    }
    try {
      return new LauncherConnection(
        client,
        socketPath,
        serverVersions,
        negotiateVersion(serverVersions, clientCmdVersions),
      );
    } catch (err) {
      client.close();
      if (err instanceof VersionMismatchError) throw new HandshakeError(err.message, serverVersions);
      throw err;
    }
  }

  /** One v1 RPC; rejects with the grpc-js ServiceError so the caller can apply handleError's rules. */
  call<K extends CmdMethod>(method: K, request: RequestOf<K>, timeoutMs: number): Promise<ResponseOf<K>> {
    const def = CmdService[method] as unknown as {
      path: string;
      requestSerialize: (v: RequestOf<K>) => Buffer;
      responseDeserialize: (b: Buffer) => ResponseOf<K>;
    };
    return unary(this.client, def, request, timeoutMs);
  }

  close(): void {
    this.client.close();
  }
}
