import { describe, expect, it } from 'vitest';
import { HandlerDecisions, summarizeDomainEvent, type DomainEventSummary } from './handler-standin.js';

const event = (domain: object, eventType = 'MODIFIED') => ({
  domainJSON: Buffer.from(JSON.stringify(domain)),
  statusJSON: Buffer.alloc(0),
  eventType,
});

describe('summarizeDomainEvent', () => {
  it('reads status, reason and the graceful-shutdown mark from KubeVirt-shaped domain JSON', () => {
    const s = summarizeDomainEvent(
      event({
        kind: 'Domain',
        Status: { Status: 'Running', Reason: 'Unknown' },
        Spec: {
          Metadata: { KubeVirt: { GracePeriod: { MarkedForGracefulShutdown: true } } },
          Devices: { Disks: [{ Target: { Device: 'vda' } }, { Target: { Device: 'sda' } }] },
        },
      }),
    );
    expect(s).toEqual({
      eventType: 'MODIFIED',
      status: 'Running',
      reason: 'Unknown',
      markedForGracefulShutdown: true,
      deletion: false,
      disks: ['vda', 'sda'],
    });
  });

  it('sees a deleted domain by its deletion timestamp', () => {
    const s = summarizeDomainEvent(
      event({
        metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' },
        Status: { Status: 'NoState', Reason: 'NonExistent' },
      }),
    );
    expect(s.deletion).toBe(true);
    expect(s.markedForGracefulShutdown).toBe(false);
  });

  it('accepts an ERROR event without a domain', () => {
    expect(summarizeDomainEvent(event({}, 'ERROR')).eventType).toBe('ERROR');
    expect(
      summarizeDomainEvent({ domainJSON: Buffer.alloc(0), statusJSON: Buffer.alloc(0), eventType: 'ERROR' }).status,
    ).toBe('');
  });
});

const ev = (status: string, reason: string, more: Partial<DomainEventSummary> = {}): DomainEventSummary => ({
  eventType: 'MODIFIED',
  status,
  reason,
  markedForGracefulShutdown: false,
  deletion: false,
  disks: [],
  ...more,
});

describe('HandlerDecisions (what virt-handler does with each domain event)', () => {
  it('answers the graceful mark with Shutdown once, and with Kill when the grace period is 0', () => {
    const d = new HandlerDecisions(30, true);
    expect(d.next(ev('Running', 'Unknown', { markedForGracefulShutdown: true }))).toEqual({ action: 'shutdown' });
    expect(d.next(ev('Running', 'Unknown', { markedForGracefulShutdown: true }))).toEqual({ action: undefined });
    const zero = new HandlerDecisions(0, true);
    expect(zero.next(ev('Running', 'Unknown', { markedForGracefulShutdown: true }))).toEqual({ action: 'kill' });
    const noAcpi = new HandlerDecisions(30, false);
    expect(noAcpi.next(ev('Running', 'Unknown', { markedForGracefulShutdown: true }))).toEqual({ action: 'kill' });
  });

  it('a guest power-off is Succeeded, a crash Failed; both are then deleted once', () => {
    const off = new HandlerDecisions(30, true);
    expect(off.next(ev('Shutoff', 'Shutdown'))).toEqual({ action: 'delete', phase: 'Succeeded' });
    expect(off.next(ev('Shutoff', 'Shutdown'))).toEqual({ action: undefined, phase: 'Succeeded' });
    expect(new HandlerDecisions(30, true).next(ev('Shutoff', 'Crashed'))).toEqual({
      action: 'delete',
      phase: 'Failed',
    });
  });

  it('a destroyed domain failed when ACPI could have shut it down, else succeeded', () => {
    expect(new HandlerDecisions(30, true).next(ev('Shutoff', 'Destroyed')).phase).toBe('Failed');
    expect(new HandlerDecisions(0, true).next(ev('Shutoff', 'Destroyed')).phase).toBe('Succeeded');
    expect(new HandlerDecisions(30, false).next(ev('Shutoff', 'Destroyed')).phase).toBe('Succeeded');
  });

  it('leaves alone a running domain, one defined but not started, and one already deleted', () => {
    const d = new HandlerDecisions(30, true);
    expect(d.next(ev('Running', 'Booted'))).toEqual({});
    expect(d.next(ev('Shutoff', 'Unknown', { eventType: 'ADDED' }))).toEqual({});
    expect(d.next(ev('NoState', 'NonExistent', { deletion: true }))).toEqual({});
    expect(d.phase).toBeUndefined();
  });
});
