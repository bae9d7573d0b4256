// The handler side of the notify socket, for whatever plays virt-handler here (the pod runner, the tests): it
// answers the NotifyInfo handshake with version 1 and hands each Notify call to a promise handler. A handler
// that throws answers success:false with its message, as a handler that cannot take an event would.
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { handleUnaryCall } from '@grpc/grpc-js';
import { NotifyInfoService } from './gen/kubevirt/notify/info/info.js';
import type { NotifyInfoServer } from './gen/kubevirt/notify/info/info.js';
import { NotifyService } from './gen/kubevirt/notify/v1/notify.js';
import type { NotifyServer, Response } from './gen/kubevirt/notify/v1/notify.js';
import type { DomainEventRequest, K8sEventRequest } from './gen/kubevirt/notify/v1/notify.js';

export const serverNotifyVersions = [1];

export interface NotifyHandlers {
  domainEvent(request: DomainEventRequest): Promise<void> | void;
  /** Kubernetes events the launcher reports; accepted and dropped when absent. */
  k8sEvent?(request: K8sEventRequest): Promise<void> | void;
}

export interface NotifyEndpoint {
  readonly socketPath: string;
  /** Lets calls in flight finish (at most 1 s), then closes. */
  close(): Promise<void>;
  /** Closes at once, cutting calls in flight. */
  forceClose(): void;
}

function answer<Req>(handle: ((req: Req) => Promise<void> | void) | undefined): handleUnaryCall<Req, Response> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => handle?.(call.request))
      .then(
        () => callback(null, { success: true, message: '' }),
        (err: unknown) => callback(null, { success: false, message: err instanceof Error ? err.message : String(err) }),
      );
  };
}

/** Serves NotifyInfo and Notify on a unix socket (a stale socket file is replaced). */
export async function serveNotify(socketPath: string, handlers: NotifyHandlers): Promise<NotifyEndpoint> {
  const server = new Server();
  const info: NotifyInfoServer = {
    info: (_call, callback) => callback(null, { supportedNotifyVersions: serverNotifyVersions }),
  };
  const notify: NotifyServer = {
    handleDomainEvent: answer((req: DomainEventRequest) => handlers.domainEvent(req)),
    handleK8SEvent: answer(handlers.k8sEvent?.bind(handlers)),
  };
  server.addService(NotifyInfoService, info);
  server.addService(NotifyService, notify);
  await mkdir(dirname(socketPath), { recursive: true });
  await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
    forceClose: () => server.forceShutdown(),
  };
}
