// The notify client: domain events to the handler's socket (kubevirt.notify.v1.Notify) after the NotifyInfo
// handshake. Retry policy of docs/cmd-contract.md#notify: try at once then every second for 20 s; transient failures
// (no gRPC status, Unavailable, DeadlineExceeded, Aborted) drop the connection and retry; others fail.
import { credentials, Metadata, status } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { NotifyInfoClient } from '../gen/kubevirt/notify/info/info.js';
import { NotifyClient } from '../gen/kubevirt/notify/v1/notify.js';
import type { DomainEventRequest, Response } from '../gen/kubevirt/notify/v1/notify.js';
import { negotiateVersion } from '../cmd-client.js';
import { log } from '../log.js';
import { Mutex } from '../domain/lock.js';

export class NotifyError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'NotifyError';
  }
}

const transient = new Set<number>([status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.ABORTED]);

function isTransient(err: unknown): boolean {
  const code = (err as Partial<ServiceError>).code;
  return typeof code !== 'number' || transient.has(code);
}

function call<Res>(fn: (cb: (err: ServiceError | null, res: Res) => void) => void): Promise<Res> {
  return new Promise((resolve, reject) => fn((err, res) => (err ? reject(err) : resolve(res))));
}

export interface NotifierOptions {
  totalMs?: number;
  intervalMs?: number;
  callTimeoutMs?: number;
}

export class Notifier {
  private client: NotifyClient | undefined;
  private readonly lock = new Mutex();
  private readonly totalMs: number;
  private readonly intervalMs: number;
  private readonly callTimeoutMs: number;

  constructor(
    readonly socketPath: string,
    options: NotifierOptions = {},
  ) {
    this.totalMs = options.totalMs ?? 20_000;
    this.intervalMs = options.intervalMs ?? 1000;
    this.callTimeoutMs = options.callTimeoutMs ?? 5000;
  }

  private async connect(): Promise<NotifyClient> {
    if (this.client) return this.client;
    const address = `unix://${this.socketPath}`;
    const opts = { 'grpc.default_authority': 'localhost' };
    const info = new NotifyInfoClient(address, credentials.createInsecure(), opts);
    try {
      const deadline = Date.now() + 2000;
      const res = await call<{ supportedNotifyVersions: number[] }>((cb) =>
        info.info({}, new Metadata(), { deadline }, cb),
      );
      negotiateVersion(res.supportedNotifyVersions, [1]);
    } finally {
      info.close();
    }
    this.client = new NotifyClient(address, credentials.createInsecure(), opts);
    log.info(`Successfully connected to domain notify socket at ${this.socketPath}`);
    return this.client;
  }

  private drop(): void {
    this.client?.close();
    this.client = undefined;
  }

  sendDomainEvent(request: DomainEventRequest): Promise<void> {
    return this.lock.run(async () => {
      const started = Date.now();
      for (;;) {
        try {
          const client = await this.connect();
          const deadline = Date.now() + this.callTimeoutMs;
          const res = await call<Response>((cb) => client.handleDomainEvent(request, new Metadata(), { deadline }, cb));
          if (!res.success && res.message !== '') throw new NotifyError(res.message);
          return;
        } catch (err) {
          if (err instanceof NotifyError || !isTransient(err)) throw err;
          this.drop();
          if (Date.now() - started + this.intervalMs > this.totalMs) {
            throw new NotifyError(`notify failed after ${this.totalMs} ms: ${(err as Error).message}`);
          }
          await new Promise((r) => setTimeout(r, this.intervalMs));
        }
      }
    });
  }

  close(): void {
    this.drop();
  }
}
