import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { metadata } from './metadata.js';

describe('metadata', () => {
  it('names the domain <namespace>_<name> and keeps the identity', () => {
    const d = run(metadata, vmi());
    expect(d.name).toBe('ns_vm');
    expect(d.metadata).toEqual({ name: 'vm', namespace: 'ns', uid: 'uid-1' });
  });
});
