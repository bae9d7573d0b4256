// After the server starts the launcher dials itself like the handler would (Info handshake + Ping), every
// second for up to 15 s; no answer means the server is broken and the launcher must not report ready.
//
// The two calls go over a plain HTTP/2 session with gRPC's framing, not through grpc-js's client: readiness waits
// for this check, and a first grpc-js client call costs ~40 ms of start-up (channel, resolver, load balancer,
// subchannel code run for the first time) against ~15 ms for the same two calls here. The server side is the
// real one either way: its HTTP/2 transport, deadlines, decoding and the Info and Ping handlers.
import { connect } from 'node:http2';
import type { ClientHttp2Session } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { CmdInfoRequest, CmdInfoResponse, CmdInfoService } from '../gen/kubevirt/cmd/info/info.js';
import { CmdService, EmptyRequest, Response } from '../gen/kubevirt/cmd/v1/cmd.js';
import { LauncherPanic, errorMessage } from '../errors.js';
import { clientCmdVersions, negotiateVersion } from '../cmd-client.js';

/** A call that did not end with grpc-status 0. */
class SelfPingCallError extends Error {
  constructor(path: string, status: string | undefined, message: string | undefined) {
    super(`${path}: grpc-status ${status ?? 'missing'}${message ? `: ${decodeURIComponent(message)}` : ''}`);
    this.name = 'SelfPingCallError';
  }
}

/** One unary call: the request framed as gRPC frames it (flag byte, 4-byte length, message); the answer's message. */
function unary(session: ClientHttp2Session, path: string, message: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': `${timeoutMs}m`,
    });
    const timer = setTimeout(() => req.close(), timeoutMs);
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let statusMessage: string | undefined;
    const note = (h: Record<string, unknown>): void => {
      if (typeof h['grpc-status'] === 'string') status = h['grpc-status'];
      if (typeof h['grpc-message'] === 'string') statusMessage = h['grpc-message'];
    };
    req.on('response', note);
    req.on('trailers', note);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('close', () => {
      clearTimeout(timer);
      const body = Buffer.concat(chunks);
      if (status !== '0') reject(new SelfPingCallError(path, status, statusMessage));
      else if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) {
        reject(new SelfPingCallError(path, status, `a malformed answer of ${body.length} bytes`));
      } else resolve(body.subarray(5));
    });
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt32BE(message.length, 1);
    frame.set(message, 5);
    req.end(frame);
  });
}

async function pingOnce(socketPath: string, timeoutMs: number): Promise<void> {
  const socket = netConnect(socketPath);
  const session = connect('http://localhost', { createConnection: () => socket });
  const failed = new Promise<never>((_, reject) => session.once('error', reject));
  failed.catch(() => undefined);
  try {
    const call = async (): Promise<void> => {
      const info = CmdInfoResponse.decode(
        await unary(session, CmdInfoService.info.path, CmdInfoRequest.encode({}).finish(), timeoutMs),
      );
      negotiateVersion(info.supportedCmdVersions, clientCmdVersions);
      const res = Response.decode(
        await unary(session, CmdService.ping.path, EmptyRequest.encode({}).finish(), timeoutMs),
      );
      if (!res.success) throw new Error(res.message || 'Ping answered without success');
    };
    await Promise.race([call(), failed]);
  } finally {
    session.destroy();
    // After a protocol error the session may leave its socket open: never leak one per attempt.
    socket.destroy();
  }
}

export async function selfPing(socketPath: string, intervalMs = 1000, totalMs = 15_000): Promise<void> {
  const deadline = Date.now() + totalMs;
  let last: unknown;
  for (;;) {
    try {
      await pingOnce(socketPath, 2000);
      return;
    } catch (err) {
      last = err;
    }
    if (Date.now() + intervalMs > deadline) break;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new LauncherPanic(`failed to connect to cmd server: ${errorMessage(last)}`, last);
}
