// The node side of the notify channel: what virt-handler serves for each launcher. It answers the NotifyInfo
// handshake, records every domain event, and reacts as virt-handler does to the one event that needs it: a
// domain marked for graceful shutdown gets a ShutdownVirtualMachine call.
import fs from 'node:fs';
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { NotifyInfoService, NotifyService, type notifyV1 } from '@virt-launcher/launcher';

export interface DomainEventSummary {
  eventType: string;
  status: string;
  reason: string;
  markedForGracefulShutdown: boolean;
  deletion: boolean;
}

interface DomainJson {
  Status?: { Status?: string; Reason?: string };
  Spec?: { Metadata?: { KubeVirt?: { GracePeriod?: { MarkedForGracefulShutdown?: boolean } } } };
  metadata?: { deletionTimestamp?: string };
  ObjectMeta?: { deletionTimestamp?: string };
}

export function summarizeDomainEvent(req: notifyV1.DomainEventRequest): DomainEventSummary {
  const text = Buffer.from(req.domainJSON).toString('utf8');
  const d = (text ? JSON.parse(text) : {}) as DomainJson;
  return {
    eventType: req.eventType,
    status: d.Status?.Status ?? '',
    reason: d.Status?.Reason ?? '',
    markedForGracefulShutdown: d.Spec?.Metadata?.KubeVirt?.GracePeriod?.MarkedForGracefulShutdown === true,
    deletion: Boolean(d.metadata?.deletionTimestamp ?? d.ObjectMeta?.deletionTimestamp),
  };
}

export interface HandlerStandIn {
  events: DomainEventSummary[];
  close(): Promise<void>;
}

export async function startHandlerStandIn(
  socketPath: string,
  onEvent: (e: DomainEventSummary) => void,
): Promise<HandlerStandIn> {
  const events: DomainEventSummary[] = [];
  const server = new Server();
  server.addService(NotifyInfoService, {
    info: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<{ supportedNotifyVersions: number[] }>) =>
      cb(null, { supportedNotifyVersions: [1] }),
  });
  server.addService(NotifyService, {
    handleDomainEvent: (
      call: ServerUnaryCall<notifyV1.DomainEventRequest, unknown>,
      cb: sendUnaryData<notifyV1.Response>,
    ) => {
      try {
        const e = summarizeDomainEvent(call.request);
        events.push(e);
        onEvent(e);
        cb(null, { success: true, message: '' });
      } catch (err) {
        cb(null, { success: false, message: (err as Error).message });
      }
    },
    handleK8sEvent: (_call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<notifyV1.Response>) =>
      cb(null, { success: true, message: '' }),
  });
  fs.rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return {
    events,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000).unref();
      }),
  };
}
