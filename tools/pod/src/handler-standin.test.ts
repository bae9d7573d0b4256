import { describe, expect, it } from 'vitest';
import { summarizeDomainEvent } from './handler-standin.js';

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
        Spec: { Metadata: { KubeVirt: { GracePeriod: { MarkedForGracefulShutdown: true } } } },
      }),
    );
    expect(s).toEqual({
      eventType: 'MODIFIED',
      status: 'Running',
      reason: 'Unknown',
      markedForGracefulShutdown: true,
      deletion: false,
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
