import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Connection } from '../adapters/libvirt.js';
import type { DomainEventMonitor } from '../events/domain-events.js';
import type { StopSignal } from './signals.js';
import { waitForDomain } from './wait-domain.js';

/** A connection whose listing holds the given domains (name and UUID). */
function listing(domains: () => { name: string; uuid: string }[]): Connection {
  return {
    listAllDomains: async () => domains().map((d) => ({ name: d.name, getUUID: async () => d.uuid })),
  } as unknown as Connection;
}

const running = (): StopSignal => ({ stopped: false, received: new Promise(() => {}) }) as unknown as StopSignal;

describe('waitForDomain', () => {
  it('finds the domain by listing once it is defined', async () => {
    const monitor = new EventEmitter() as unknown as DomainEventMonitor;
    let defined = false;
    setTimeout(() => (defined = true), 30);
    const conn = listing(() => (defined ? [{ name: 'default_vm', uuid: 'u-1' }] : []));
    await expect(waitForDomain('default_vm', () => conn, monitor, running(), 5_000, 10)).resolves.toBe('default_vm');
  });

  it('takes the domain from its ADDED event even when it is gone again before the next listing', async () => {
    const monitor = new EventEmitter() as unknown as DomainEventMonitor;
    const conn = listing(() => []); // defined and undefined between two listings: never listed
    setTimeout(() => (monitor as unknown as EventEmitter).emit('added', { type: 'ADDED' }), 30);
    await expect(waitForDomain('default_vm', () => conn, monitor, running(), 5_000, 60_000)).resolves.toBe(
      'default_vm',
    );
  });

  it('ignores other domains and times out when ours never comes', async () => {
    const monitor = new EventEmitter() as unknown as DomainEventMonitor;
    const conn = listing(() => [{ name: 'default_other', uuid: 'u-2' }]);
    await expect(waitForDomain('default_vm', () => conn, monitor, running(), 50, 10)).rejects.toThrow(
      'timed out waiting for domain to be defined',
    );
  });
});
