// Which libvirt callbacks reach the handler and how, following KubeVirt's notifier
// (pkg/virt-launcher/notify-client/client.go: StartDomainNotifier registers lifecycle, device added/removed,
// memory-device size change, job completed and agent lifecycle; eventCallback answers each with the domain read
// again by name, sent as MODIFIED). The handler is the launcher's own notify server on a unix socket.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Libvirt from '@virt-launcher/libvirt';
import { MetadataCache } from '../domain/metadata.js';
import { FakeConnection, type FakeDomain } from '../testing/fake-connection.js';
import { NotifyStandIn, type ReceivedEvent } from '../testing/handler-standin.js';
import { DomainEventMonitor, STATE_CALLBACKS, type StateCallback } from './domain-events.js';
import { Notifier } from './notifier.js';

const NAME = 'default_vm';

const disk = (target: string, alias: string) =>
  `<disk type='file' device='disk'><source file='/disks/${alias}.img'/><target dev='${target}' bus='virtio'/>` +
  `<alias name='ua-${alias}'/></disk>`;
const domainXml = (disks: string[]) =>
  `<domain type='qemu'><name>${NAME}</name><uuid>00000000-0000-4000-8000-000000000001</uuid>` +
  `<devices>${disks.join('')}</devices></domain>`;

const aliases = (e: ReceivedEvent | undefined) =>
  ((e?.domain.Spec as { Devices?: { Disks?: Array<{ Alias?: { Name: string } }> } }).Devices?.Disks ?? []).map(
    (d) => d.Alias?.Name,
  );

/** One payload of each callback the monitor forwards, for a domain by name. */
/** Emits one callback for a domain as the binding would. */
function emitState(conn: FakeConnection, callback: StateCallback, name: string): void {
  // One payload type per callback name; the union of names needs the cast.
  conn.emit(callback, payloadOf(callback, name) as never);
}

function payloadOf(callback: StateCallback, name: string) {
  const base = { name, uuid: '00000000-0000-4000-8000-000000000001' };
  switch (callback) {
    case 'deviceAdded':
    case 'deviceRemoved':
      return { ...base, alias: 'ua-hp' } satisfies Libvirt.DeviceEvent;
    case 'memoryDeviceSizeChange':
      return { ...base, alias: 'ua-mem0', sizeKiB: 131072 } satisfies Libvirt.MemoryDeviceSizeEvent;
    case 'jobCompleted':
      return { ...base, stats: { operation: 5 } } satisfies Libvirt.JobCompletedEvent;
    case 'agentLifecycle':
      return {
        ...base,
        state: 'connected',
        reason: 'channel',
        stateCode: 1,
        reasonCode: 2,
      } satisfies Libvirt.AgentLifecycleEvent;
  }
}

describe('DomainEventMonitor forwards what KubeVirt forwards', () => {
  let dir = '';
  let conn: FakeConnection;
  let dom: FakeDomain;
  let handler: NotifyStandIn;
  let notifier: Notifier;
  let monitor: DomainEventMonitor;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-monitor-'));
    handler = new NotifyStandIn();
    await handler.listen(join(dir, 'domain-notify-pipe.sock'));
    notifier = new Notifier(join(dir, 'domain-notify-pipe.sock'), { totalMs: 5000, intervalMs: 50 });
    conn = await FakeConnection.open();
    dom = await conn.defineXML(domainXml([disk('vda', 'containerdisk')]));
    await dom.create();
    monitor = new DomainEventMonitor(NAME, () => conn, new MetadataCache(), notifier);
    monitor.attach(conn);
  });

  afterEach(async () => {
    notifier.close();
    handler.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends MODIFIED with the hot-plugged disk on device-added, and without it on device-removed', async () => {
    dom.xml = domainXml([disk('vda', 'containerdisk'), disk('vdb', 'hp')]);
    emitState(conn, 'deviceAdded', NAME);
    await monitor.drain();
    expect(handler.events.map((e) => e.eventType)).toEqual(['MODIFIED']);
    expect(aliases(handler.events[0])).toEqual(['containerdisk', 'hp']);
    expect(handler.events[0]?.domain.Status.Status).toBe('Running');

    dom.xml = domainXml([disk('vda', 'containerdisk')]);
    emitState(conn, 'deviceRemoved', NAME);
    await monitor.drain();
    expect(handler.events.map((e) => e.eventType)).toEqual(['MODIFIED', 'MODIFIED']);
    expect(aliases(handler.events[1])).toEqual(['containerdisk']);
  });

  it.each(STATE_CALLBACKS)('answers %s with one MODIFIED event carrying the current domain', async (callback) => {
    emitState(conn, callback, NAME);
    await monitor.drain();
    expect(handler.events).toHaveLength(1);
    expect(handler.events[0]?.eventType).toBe('MODIFIED');
    expect(handler.events[0]?.domain.ObjectMeta.name).toBe('vm');
    expect(aliases(handler.events[0])).toEqual(['containerdisk']);
  });

  it("ignores another domain's callbacks", async () => {
    for (const callback of STATE_CALLBACKS) emitState(conn, callback, 'default_other');
    await monitor.drain();
    expect(handler.events).toHaveLength(0);
  });

  it('sends one event for an agent lifecycle change and the guest agent refresh it causes', async () => {
    // The guest agent listens after the monitor (main/launcher.ts) and asks for a refresh on the same event.
    conn.on('agentLifecycle', () => monitor.refresh());
    emitState(conn, 'agentLifecycle', NAME);
    await monitor.drain();
    expect(handler.events).toHaveLength(1);
  });

  it('re-registers after a reconnect without answering each callback twice', async () => {
    monitor.attach(conn);
    emitState(conn, 'deviceAdded', NAME);
    await monitor.drain();
    expect(handler.events).toHaveLength(1);
    // Once the domain was seen, a reconnect sends its current state once (the gap's events are lost).
    monitor.attach(conn);
    await monitor.drain();
    expect(handler.events).toHaveLength(2);
  });
});
