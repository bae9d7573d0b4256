// Kubernetes events the launcher asks the handler to record (Notify/HandleK8sEvent; docs/k8s-events.md). The
// handler decodes the JSON as a core/v1 Event, finds the VMI by the involved object's namespace/name and checks
// its UID, then records type, reason and message. The JSON below is what Go's encoding/json makes of such an
// Event with only those fields set, so a stock handler reads it unchanged.
import type { Notifier } from './notifier.js';

export type K8sEventType = 'Normal' | 'Warning';

export interface K8sEvent {
  type: K8sEventType;
  /** CamelCase, e.g. `IOerror`, `GuestPanicked`, `GuestAgentPingFailed`. */
  reason: string;
  message: string;
}

/** The VMI an event is about (the launcher's --namespace, --name and --uid). */
export interface VmiRef {
  namespace: string;
  name: string;
  uid: string;
}

export class K8sEventError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    why: string,
  ) {
    super(`invalid Kubernetes event: ${field} ${JSON.stringify(value)} ${why}`);
    this.name = 'K8sEventError';
  }
}

function validate(event: K8sEvent, vmi: VmiRef): void {
  if (event.type !== 'Normal' && event.type !== 'Warning') {
    throw new K8sEventError('type', event.type, 'is not Normal or Warning');
  }
  if (typeof event.reason !== 'string' || event.reason === '')
    throw new K8sEventError('reason', event.reason, 'is empty');
  if (typeof event.message !== 'string') throw new K8sEventError('message', event.message, 'is not a string');
  // The handler drops an event whose VMI it cannot find: without a name there is nothing to find.
  if (!vmi.name) throw new K8sEventError('involvedObject.name', vmi.name, 'is empty');
}

/** Go's encoding of a core/v1 Event with only InvolvedObject, Type, Reason and Message set. */
export function k8sEventJson(event: K8sEvent, vmi: VmiRef): string {
  const involvedObject: Record<string, string> = { kind: 'VirtualMachineInstance' };
  // ObjectReference fields are all omitempty, in the struct's order.
  if (vmi.namespace) involvedObject.namespace = vmi.namespace;
  if (vmi.name) involvedObject.name = vmi.name;
  if (vmi.uid) involvedObject.uid = vmi.uid;
  involvedObject.apiVersion = 'kubevirt.io/v1';
  const json: Record<string, unknown> = { metadata: { creationTimestamp: null }, involvedObject };
  if (event.reason) json.reason = event.reason;
  if (event.message) json.message = event.message;
  Object.assign(json, { source: {}, firstTimestamp: null, lastTimestamp: null });
  if (event.type) json.type = event.type;
  Object.assign(json, { eventTime: null, reportingComponent: '', reportingInstance: '' });
  return JSON.stringify(json);
}

/** One small sender for every part of the launcher that reports a Kubernetes event. */
export class K8sEventSender {
  constructor(
    private readonly notifier: Pick<Notifier, 'sendK8sEvent'>,
    private readonly vmi: () => VmiRef,
  ) {}

  /** Validates (K8sEventError names the bad field), then delivers with the notifier's retry policy. */
  async sendK8sEvent(event: K8sEvent): Promise<void> {
    const vmi = this.vmi();
    validate(event, vmi);
    await this.notifier.sendK8sEvent({ eventJSON: Buffer.from(k8sEventJson(event, vmi)) });
  }
}
