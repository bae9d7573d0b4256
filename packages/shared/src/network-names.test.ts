import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bridgedNicName,
  fakeBridgeIp,
  secondaryNetworkHash,
  secondaryPodIfaceName,
  secondaryTapName,
} from './network-names.js';

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

describe('the bridge binding names (KubeVirt pkg/network/link)', () => {
  it('renames the pod interface <name>-nic and numbers the fake server address by interface position', () => {
    expect(bridgedNicName('eth0')).toBe('eth0-nic');
    expect(bridgedNicName('pod0123456789a')).toBe('0123456789a-nic');
    expect(fakeBridgeIp(0)).toBe('169.254.75.10');
    expect(fakeBridgeIp(3)).toBe('169.254.75.13');
    expect(() => fakeBridgeIp(16)).toThrow(RangeError);
    expect(() => fakeBridgeIp(-1)).toThrow('interface index -1 is out of range 0..15');
  });
});
