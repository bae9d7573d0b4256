// Test helper: the virt-handler side built from the same protos — a notify server (NotifyInfo + Notify)
// that records domain events, and VMI documents for the cmd client.
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { NotifyInfoService } from '../gen/kubevirt/notify/info/info.js';
import { NotifyService } from '../gen/kubevirt/notify/v1/notify.js';

export interface ReceivedEvent {
  eventType: string;
  domain: {
    ObjectMeta: { name: string; namespace: string; uid: string; deletionTimestamp?: string };
    Status: { Status: string; Reason: string };
    Spec: { Metadata?: { KubeVirt?: { UID: string; GracePeriod?: { MarkedForGracefulShutdown?: boolean } } } };
  };
}

export class NotifyStandIn {
  readonly events: ReceivedEvent[] = [];
  private readonly server = new Server();
  private waiters: Array<() => void> = [];

  constructor() {
    this.server.addService(NotifyInfoService, {
      info: (_call: unknown, cb: (e: null, r: { supportedNotifyVersions: number[] }) => void) =>
        cb(null, { supportedNotifyVersions: [1] }),
    });
    this.server.addService(NotifyService, {
      handleDomainEvent: (
        call: { request: { domainJSON: Buffer; eventType: string } },
        cb: (e: null, r: { success: boolean; message: string }) => void,
      ) => {
        this.events.push({
          eventType: call.request.eventType,
          domain: JSON.parse(call.request.domainJSON.toString()) as ReceivedEvent['domain'],
        });
        this.waiters.forEach((w) => w());
        cb(null, { success: true, message: '' });
      },
      handleK8sEvent: (_call: unknown, cb: (e: null, r: { success: boolean; message: string }) => void) =>
        cb(null, { success: true, message: '' }),
    });
  }

  async listen(path: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    await rm(path, { force: true });
    await new Promise<void>((resolve, reject) =>
      this.server.bindAsync(`unix://${path}`, ServerCredentials.createInsecure(), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }

  waitFor(pred: (e: ReceivedEvent) => boolean, timeoutMs = 30_000): Promise<ReceivedEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.events.find(pred);
        if (!hit) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        const seen = this.events.map((e) => `${e.eventType}:${e.domain.Status.Status}`).join(', ');
        reject(new Error(`no matching notify event within ${timeoutMs} ms; seen: ${seen}`));
      }, timeoutMs);
      this.waiters.push(check);
      check();
    });
  }

  close(): void {
    this.server.forceShutdown();
  }
}

export function vmiJson(name: string, extra: { volumes?: unknown[]; disks?: unknown[]; spec?: object } = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: { name, namespace: 'default', uid: `uid-${name}` },
      spec: {
        domain: {
          resources: { requests: { memory: '64Mi' } },
          devices: { disks: extra.disks ?? [] },
        },
        volumes: extra.volumes ?? [],
        terminationGracePeriodSeconds: 5,
        ...extra.spec,
      },
    }),
  );
}

export const request = (vmi: Buffer) => ({ vmi: { vmiJson: vmi }, options: undefined });
