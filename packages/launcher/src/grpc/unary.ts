// The one promise wrapper over a grpc-js unary call, typed from a generated ts-proto method definition, so
// every client of the launcher (cmd, notify, their Info handshakes) shares one channel per socket and one
// per-call deadline rule instead of each wrapping callbacks its own way.
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';

/** The parts of a generated method definition a unary call needs. */
export interface UnaryMethod<Req, Res> {
  path: string;
  requestSerialize: (value: Req) => Buffer;
  responseDeserialize: (bytes: Buffer) => Res;
}

// virt-handler sets :authority to localhost; grpc-js would otherwise put the socket path there.
const channelOptions = { 'grpc.default_authority': 'localhost' };

/** A channel to a unix socket, not yet connected. */
export function openChannel(socketPath: string): Client {
  return new Client(`unix://${socketPath}`, credentials.createInsecure(), channelOptions);
}

/** Connects the channel now (KubeVirt's blocking dial); rejects when it is not ready within timeoutMs. */
export function waitForReady(client: Client, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(err) : resolve())),
  );
}

/** One call with its own deadline; rejects with the grpc-js ServiceError. */
export function callUnary<Req, Res>(
  client: Client,
  method: UnaryMethod<Req, Res>,
  request: Req,
  timeoutMs: number,
): Promise<Res> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      new Metadata(),
      { deadline: Date.now() + timeoutMs },
      (err: ServiceError | null, res?: Res) => {
        if (err) reject(err);
        else if (res === undefined) reject(new Error(`${method.path} returned no message`));
        else resolve(res);
      },
    );
  });
}
