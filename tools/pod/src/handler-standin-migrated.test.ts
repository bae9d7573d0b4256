import { describe, expect, it } from 'vitest';
import { HandlerDecisions } from './handler-standin.js';

const off = (reason: string) => ({
  eventType: 'MODIFIED',
  status: 'Shutoff',
  reason,
  markedForGracefulShutdown: false,
  deletion: false,
  disks: [],
});

describe('HandlerDecisions after a live migration', () => {
  it('leaves a domain that migrated away alone: no phase, no Delete (its pod is deleted instead)', () => {
    const d = new HandlerDecisions(30, true);
    expect(d.next(off('Migrated'))).toEqual({});
    expect(d.phase).toBeUndefined();
    // Another off reason later is still handled as before.
    expect(d.next(off('Shutdown'))).toEqual({ action: 'delete', phase: 'Succeeded' });
  });
});
