import { describe, expect, it } from 'vitest';
import { endsDomain, watchType } from './domain-events.js';

describe('watchType', () => {
  it('is ADDED only for the first definition and for a start as migration target', () => {
    expect(watchType({ event: 'defined', detail: 'added' })).toBe('ADDED');
    expect(watchType({ event: 'started', detail: 'migrated' })).toBe('ADDED');
  });

  it('is MODIFIED for a redefinition, a plain start and metadata changes', () => {
    expect(watchType({ event: 'defined', detail: 'updated' })).toBe('MODIFIED');
    expect(watchType({ event: 'started', detail: 'booted' })).toBe('MODIFIED');
    expect(watchType({ event: 'stopped', detail: 'shutdown' })).toBe('MODIFIED');
    expect(watchType(undefined)).toBe('MODIFIED');
  });
});

describe('endsDomain', () => {
  it('holds for an undefine and for a stop that is not a migration', () => {
    expect(endsDomain({ event: 'undefined', detail: 'removed' })).toBe(true);
    expect(endsDomain({ event: 'stopped', detail: 'shutdown' })).toBe(true);
    expect(endsDomain({ event: 'stopped', detail: 'crashed' })).toBe(true);
  });

  it('does not hold after an outbound migration, for other events or for metadata changes', () => {
    expect(endsDomain({ event: 'stopped', detail: 'migrated' })).toBe(false);
    expect(endsDomain({ event: 'suspended', detail: 'paused' })).toBe(false);
    expect(endsDomain(undefined)).toBe(false);
  });
});
