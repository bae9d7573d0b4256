// Kubernetes events over the real notify socket: the launcher's Notifier → serveNotify (the handler's side).
import { EventEmitter } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveNotify } from '../notify-server.js';
import type { NotifyEndpoint } from '../notify-server.js';
import { Notifier } from './notifier.js';
import { K8sEventError, K8sEventSender } from './k8s-events.js';
import { DomainK8sEvents, panicMessage, volumesByTarget } from './k8s-domain-events.js';
import type { K8sEventsConnection } from './k8s-domain-events.js';

interface Received {
  type: string;
  reason: string;
  message: string;
  involvedObject: Record<string, string>;
}

describe('Kubernetes events to the handler', () => {
  let dir = '';
  let endpoint: NotifyEndpoint;
  let notifier: Notifier;
  const received: Received[] = [];
  const raw: string[] = [];
  const vmi = { namespace: 'ns1', name: 'vm1', uid: '1234-abcd' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-k8s-'));
    endpoint = await serveNotify(join(dir, 'domain-notify-pipe.sock'), {
      domainEvent: () => undefined,
      k8sEvent: (req) => {
        raw.push(req.eventJSON.toString());
        received.push(JSON.parse(req.eventJSON.toString()) as Received);
      },
    });
    notifier = new Notifier(endpoint.socketPath, { totalMs: 5000, intervalMs: 100 });
  });

  afterAll(async () => {
    notifier?.close();
    await endpoint?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const take = (): Received[] => received.splice(0);

  it("sends Go's encoding of a core/v1 Event naming the VMI", async () => {
    raw.splice(0);
    await new K8sEventSender(notifier, () => vmi).sendK8sEvent({
      type: 'Warning',
      reason: 'GuestAgentPingFailed',
      message: 'x',
    });
    expect(take()).toHaveLength(1);
    expect(raw).toEqual([
      '{"metadata":{"creationTimestamp":null},"involvedObject":{"kind":"VirtualMachineInstance","namespace":"ns1",' +
        '"name":"vm1","uid":"1234-abcd","apiVersion":"kubevirt.io/v1"},"reason":"GuestAgentPingFailed","message":"x",' +
        '"source":{},"firstTimestamp":null,"lastTimestamp":null,"type":"Warning","eventTime":null,' +
        '"reportingComponent":"","reportingInstance":""}',
    ]);
  });

  it('refuses a bad event with a typed error naming the field, sending nothing', async () => {
    const sender = new K8sEventSender(notifier, () => vmi);
    const err = await sender
      .sendK8sEvent({ type: 'Info' as 'Normal', reason: 'X', message: '' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(K8sEventError);
    expect(err).toMatchObject({ field: 'type', value: 'Info' });
    const noReason = await sender.sendK8sEvent({ type: 'Normal', reason: '', message: '' }).catch((e: unknown) => e);
    expect(noReason).toMatchObject({ field: 'reason' });
    expect(take()).toEqual([]);
  });

  describe('from domain events', () => {
    const xml = `<domain><devices>
      <disk type='file'><target dev='vda' bus='virtio'/><alias name='ua-rootdisk'/></disk>
      <disk type='file'><target dev='vdb' bus='virtio'/><alias name='ua-data'/></disk></devices></domain>`;
    let conn: EventEmitter & K8sEventsConnection;
    let reporter: DomainK8sEvents;
    const logPath = () => join(dir, 'qemu.log');

    beforeAll(() => {
      const dom = {
        name: 'ns1_vm1',
        getXMLDesc: async () => xml,
        getDiskErrors: async () => [
          { disk: 'vda', error: 'unspec', errorCode: 1 },
          { disk: 'vdb', error: 'no_space', errorCode: 2 },
        ],
      };
      conn = Object.assign(new EventEmitter(), {
        lookupDomainByName: async () => dom,
      }) as unknown as EventEmitter & K8sEventsConnection;
      reporter = new DomainK8sEvents('ns1_vm1', () => conn, new K8sEventSender(notifier, () => vmi), logPath);
      reporter.attach(conn);
      reporter.attach(conn); // a reconnect re-attaches without doubling events
    });

    const emit = (event: string, detail: string, name = 'ns1_vm1') =>
      conn.emit('domainEvent', { name, uuid: 'u', event, detail, eventCode: 0, detailCode: 0 });

    it('a pause for I/O errors sends one IOerror per disk, naming the VMI volume', async () => {
      emit('suspended', 'ioerror');
      emit('suspended', 'paused'); // a user pause is no I/O error
      emit('suspended', 'ioerror', 'ns1_other'); // not our domain
      await reporter.drain();
      expect(take().map((e) => [e.type, e.reason, e.message, e.involvedObject.name])).toEqual([
        ['Warning', 'IOerror', 'VM Paused due to IO error at the volume: rootdisk', 'vm1'],
        ['Warning', 'IOerror', 'VM Paused due to not enough space on volume: data', 'vm1'],
      ]);
    });

    it('a crash sends GuestPanicked once for a panic, with details from the QEMU log', async () => {
      await writeFile(
        logPath(),
        "2026-01-01 10:00:00.000+0000: starting up\n2026-01-01 10:00:09.506+0000: panic hyper-v: arg1='0x5a', arg2='0x1', arg3='0x0', arg4='0x0', arg5='0x0'\n",
      );
      emit('crashed', 'panicked');
      emit('crashed', 'panicked');
      await reporter.drain();
      expect(take().map((e) => [e.type, e.reason, e.message])).toEqual([
        ['Warning', 'GuestPanicked', "GuestPanicked: '0x5a', '0x1', '0x0', '0x0', '0x0'"],
      ]);
    });
  });

  it('panic messages: without a log line the details are unavailable; other types name the type', () => {
    expect(panicMessage(undefined)).toBe('GuestPanicked (details unavailable)');
    expect(panicMessage('nothing here\n')).toBe('GuestPanicked (details unavailable)');
    expect(panicMessage('x: panic s390: core=0 reason=disabled-wait\n')).toBe('GuestPanicked: type=s390');
  });

  it('volumes by target read the alias without the ua- prefix', () => {
    expect([...volumesByTarget("<disk><target dev='sda'/><alias name='ua-cd'/></disk>")]).toEqual([['sda', 'cd']]);
  });
});
