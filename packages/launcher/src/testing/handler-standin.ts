// Test helper: the virt-handler side built from the same protos — the launcher's notify server (serveNotify)
// recording domain events, and VMI documents for the cmd client.
import { serveNotify } from '../notify-server.js';
import type { NotifyEndpoint } from '../notify-server.js';

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
  private endpoint: NotifyEndpoint | undefined;
  private waiters: Array<() => void> = [];

  async listen(path: string): Promise<void> {
    this.endpoint = await serveNotify(path, {
      domainEvent: (request) => {
        this.events.push({
          eventType: request.eventType,
          domain: JSON.parse(request.domainJSON.toString()) as ReceivedEvent['domain'],
        });
        this.waiters.forEach((w) => w());
      },
    });
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
    this.endpoint?.forceClose();
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
