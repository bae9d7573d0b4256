import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { secondaryNetworkHash, secondaryPodIfaceName, secondaryTapName } from './network-names.js';

describe('secondary network link names', () => {
  it('are pod/tap + the first 11 hex digits of SHA-256 of the network name', () => {
    const hex = createHash('sha256').update('blue').digest('hex');
    expect(secondaryNetworkHash('blue')).toBe(hex.slice(0, 11));
    expect(secondaryPodIfaceName('blue')).toBe(`pod${hex.slice(0, 11)}`);
    expect(secondaryTapName('blue')).toBe(`tap${hex.slice(0, 11)}`);
  });

  it('fit IFNAMSIZ with a "-nic" suffix and differ between networks', () => {
    expect(`${secondaryNetworkHash('a-very-long-network-name-indeed')}-nic`.length).toBeLessThanOrEqual(15);
    expect(secondaryTapName('blue')).not.toBe(secondaryTapName('red'));
  });
});
