import { describe, expect, it } from 'vitest';
import { uuidV5 } from './uuid.js';

describe('uuidV5', () => {
  it('matches the RFC 4122 example for the DNS namespace', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });
  it('is stable and name-dependent', () => {
    const a = uuidV5('6a1a24a1-4061-4607-8bf4-a3963d0c5895', 'vm-a');
    expect(a).toBe(uuidV5('6a1a24a1-4061-4607-8bf4-a3963d0c5895', 'vm-a'));
    expect(a).not.toBe(uuidV5('6a1a24a1-4061-4607-8bf4-a3963d0c5895', 'vm-b'));
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
