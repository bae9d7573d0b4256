// A client of the launcher's cmd socket built from the same protos, used by the self-ping, the tests and
// the tools (launcherctl, pod runner). It does what virt-handler's NewClient does: Info handshake first,
// pick the highest version both sides know, then a v1 Cmd client.
import { credentials } from '@grpc/grpc-js';
import type { Client, ServiceError } from '@grpc/grpc-js';
import { CmdInfoClient } from './gen/kubevirt/cmd/info/info.js';
import { CmdClient } from './gen/kubevirt/cmd/v1/cmd.js';
import type { CmdMethod, RequestOf, ResponseOf } from './cmd-server/rpc-table.js';

export const clientCmdVersions = [1];

export class VersionMismatchError extends Error {
  constructor(
    readonly server: number[],
    readonly client: number[],
  ) {
    super(`no compatible version found, server: [${server.join(' ')}], client: [${client.join(' ')}]`);
    this.name = 'VersionMismatchError';
  }
}

/** Highest version the server offers that the client also knows (KubeVirt's negotiation). */
export function negotiateVersion(server: number[], client: number[]): number {
  const match = [...server].sort((a, b) => b - a).find((v) => client.includes(v));
  if (match === undefined) throw new VersionMismatchError(server, client);
  return match;
}

type UnaryFn = (req: unknown, opts: { deadline: number }, cb: (err: ServiceError | null, res: never) => void) => void;

const channelOptions = { 'grpc.default_authority': 'localhost' };

function unary<Req, Res>(client: Client, method: string, request: Req, timeoutMs: number): Promise<Res> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, UnaryFn>)[method];
    if (!fn) return reject(new Error(`no such method ${method}`));
    fn.call(client, request, { deadline: Date.now() + timeoutMs }, (err: ServiceError | null, res: Res) =>
      err ? reject(err) : resolve(res),
    );
  });
}

export interface LauncherClient {
  version: number;
  call<K extends CmdMethod>(method: K, request: RequestOf<K>, timeoutMs?: number): Promise<ResponseOf<K>>;
  close(): void;
}

export async function connectLauncher(socketPath: string, timeoutMs = 5000): Promise<LauncherClient> {
  const address = `unix://${socketPath}`;
  const info = new CmdInfoClient(address, credentials.createInsecure(), channelOptions);
  try {
    const res = await unary<object, { supportedCmdVersions: number[] }>(info, 'info', {}, timeoutMs);
    const version = negotiateVersion(res.supportedCmdVersions, clientCmdVersions);
    const cmd = new CmdClient(address, credentials.createInsecure(), channelOptions);
    return {
      version,
      call: (method, request, ms = timeoutMs) => unary(cmd, method, request, ms),
      close: () => cmd.close(),
    };
  } finally {
    info.close();
  }
}
