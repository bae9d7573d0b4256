// The kubevirt.cmd.v1 gRPC server on a Unix socket: CmdInfo and Cmd on one server (the handler's client
// negotiates the version through CmdInfo before it builds a Cmd client), started on launcher-init-sock and
// renamed to launcher-sock once it answers (docs/cmd-contract.md#sockets).
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { CmdInfoService } from '../gen/kubevirt/cmd/info/info.js';
import type { CmdInfoServer } from '../gen/kubevirt/cmd/info/info.js';
import { CmdService } from '../gen/kubevirt/cmd/v1/cmd.js';
import { log } from '../log.js';
import { refuseLiveSocket } from '../main/socket-check.js';
import { buildCmdImplementation } from './rpc-table.js';
import type { CmdHandlers } from './rpc-table.js';

export const supportedCmdVersions = [1];

/** gRPC's default receive limit, which KubeVirt's cmd server keeps: a larger request is refused before decoding. */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

export interface CmdServerOptions {
  /** Largest request accepted; larger ones get RESOURCE_EXHAUSTED without being buffered or parsed. */
  maxRequestBytes?: number;
  /** A connection with no call in flight for this long is closed (also one that never sends a byte). */
  idleMs?: number;
  /** How often the server pings a connection to find dead peers, and how long it waits for the answer. */
  keepaliveMs?: number;
  keepaliveTimeoutMs?: number;
}

/** The handler opens a connection per operation and closes it; anything idle for minutes is a leak or a stall. */
const defaults: Required<CmdServerOptions> = {
  maxRequestBytes: MAX_REQUEST_BYTES,
  idleMs: 5 * 60_000,
  keepaliveMs: 60_000,
  keepaliveTimeoutMs: 20_000,
};

export class CmdServer {
  private readonly server: Server;
  private socketPath = '';

  constructor(handlers: CmdHandlers, options: CmdServerOptions = {}) {
    const o = { ...defaults, ...options };
    this.server = new Server({
      'grpc.max_receive_message_length': o.maxRequestBytes,
      'grpc.max_connection_idle_ms': o.idleMs,
      'grpc.keepalive_time_ms': o.keepaliveMs,
      'grpc.keepalive_timeout_ms': o.keepaliveTimeoutMs,
    });
    const info: CmdInfoServer = {
      info: (_call, callback) => callback(null, { supportedCmdVersions }),
    };
    this.server.addService(CmdInfoService, info);
    this.server.addService(CmdService, buildCmdImplementation(handlers));
  }

  get path(): string {
    return this.socketPath;
  }

  /**
   * Binds the socket; a stale file left by a crashed launcher is removed first (EADDRINUSE otherwise). A socket
   * that still answers, this one or one of `alsoOwned` (launcher-sock, which markReady would replace), belongs
   * to a running launcher: SocketInUseError, and nothing is removed.
   */
  async listen(socketPath: string, alsoOwned: string[] = []): Promise<void> {
    await mkdir(dirname(socketPath), { recursive: true, mode: 0o755 });
    for (const path of [socketPath, ...alsoOwned]) await refuseLiveSocket(path, 'virt-launcher cmd server');
    await rm(socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      );
    });
    this.socketPath = socketPath;
  }

  /** Readiness: the handler only looks for launcher-sock. The listening socket survives the rename. */
  async markReady(readySocket: string): Promise<void> {
    await rm(readySocket, { force: true });
    await rename(this.socketPath, readySocket);
    this.socketPath = readySocket;
    log.info('Marked as ready');
  }

  /** Graceful stop capped at 1 s, then forced, then the socket file is removed. */
  async stop(): Promise<void> {
    log.info('stopping cmd server');
    const graceful = new Promise<boolean>((resolve) => this.server.tryShutdown(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000).unref());
    if (await Promise.race([graceful, timeout])) log.info('cmd server stopped');
    else {
      log.info('timeout on stopping the cmd server, continuing anyway.');
      this.server.forceShutdown();
    }
    if (this.socketPath) await rm(this.socketPath, { force: true });
  }
}
