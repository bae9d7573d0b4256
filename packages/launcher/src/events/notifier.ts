// The notify client: domain events to the handler's socket (kubevirt.notify.v1.Notify) after the NotifyInfo
// handshake. Retry policy of docs/cmd-contract.md#notify: try at once then every second for 20 s; transient failures
// (no gRPC status, Unavailable, DeadlineExceeded, Aborted) drop the connection and retry; others fail.
import { status } from '@grpc/grpc-js';
import type { Client, ServiceError } from '@grpc/grpc-js';
import { NotifyInfoService } from '../gen/kubevirt/notify/info/info.js';
import { NotifyService } from '../gen/kubevirt/notify/v1/notify.js';
import type { DomainEventRequest, K8sEventRequest } from '../gen/kubevirt/notify/v1/notify.js';
import { negotiateVersion } from '../cmd-client.js';
import { callUnary, openChannel } from '../grpc/unary.js';
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

export interface NotifierOptions {
  totalMs?: number;
  intervalMs?: number;
  callTimeoutMs?: number;
}

export class Notifier {
  private client: Client | undefined;
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

  private async connect(): Promise<Client> {
    if (this.client) return this.client;
    // One channel for the handshake and the events that follow it.
    const channel = openChannel(this.socketPath);
    try {
      const res = await callUnary(channel, NotifyInfoService.info, {}, 2000);
      negotiateVersion(res.supportedNotifyVersions, [1]);
    } catch (err) {
      channel.close();
      throw err;
    }
    this.client = channel;
    log.info(`Successfully connected to domain notify socket at ${this.socketPath}`);
    return this.client;
  }

  private drop(): void {
    this.client?.close();
    this.client = undefined;
  }

  sendDomainEvent(request: DomainEventRequest): Promise<void> {
    return this.deliver((client) => callUnary(client, NotifyService.handleDomainEvent, request, this.callTimeoutMs));
  }

  /** A Kubernetes event (Notify/HandleK8sEvent), with the same retry policy and order as domain events. */
  sendK8sEvent(request: K8sEventRequest): Promise<void> {
    return this.deliver((client) => callUnary(client, NotifyService.handleK8SEvent, request, this.callTimeoutMs));
  }

  private deliver(send: (client: Client) => Promise<{ success: boolean; message: string }>): Promise<void> {
    return this.lock.run(async () => {
      const started = Date.now();
      for (;;) {
        try {
          const client = await this.connect();
          const res = await send(client);
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
