// Helpers shared by the tests: domain XML and waiting for events.
import { randomBytes } from 'node:crypto';

import type { Connection } from './connection.js';
import type { DomainLifecycleEvent } from './types.js';

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A domain the test driver accepts. */
export function testDomainXml(name: string): string {
  return `<domain type='test'><name>${name}</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type arch='x86_64'>hvm</type></os></domain>`;
}

/** A TCG guest with no disks: SeaBIOS finds nothing to boot and idles, which is enough to see it run. */
export function tcgDomainXml(name: string, extraDevices = ''): string {
  return `<domain type='qemu'><name>${name}</name><memory unit='MiB'>64</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type></os>
  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator><video><model type='none'/></video>
  <controller type='usb' model='qemu-xhci'/>${extraDevices}</devices></domain>`;
}

/** Resolves with the first lifecycle event of `name` matching `event`; rejects after `ms`. */
export function nextEvent(conn: Connection, name: string, event: string, ms = 30_000): Promise<DomainLifecycleEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      conn.off('domainEvent', listener);
      reject(new Error(`no '${event}' event for ${name} within ${ms} ms`));
    }, ms);
    const listener = (e: DomainLifecycleEvent): void => {
      if (e.name !== name || e.event !== event) return;
      clearTimeout(timer);
      conn.off('domainEvent', listener);
      resolve(e);
    };
    conn.on('domainEvent', listener);
  });
}

/** Collects every lifecycle event of `name` until stopped. */
export function recordEvents(conn: Connection, name: string): { events: DomainLifecycleEvent[]; stop: () => void } {
  const events: DomainLifecycleEvent[] = [];
  const listener = (e: DomainLifecycleEvent): void => {
    if (e.name === name) events.push(e);
  };
  conn.on('domainEvent', listener);
  return { events, stop: () => conn.off('domainEvent', listener) };
}
