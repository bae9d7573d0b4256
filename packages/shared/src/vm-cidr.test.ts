import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAddress, hostAt, VmCidrError, isGlobalUnicast, parseAddress, parseVmCidr } from './vm-cidr.js';

describe('cidr', () => {
  it('gateway and guest are network+1 and network+2, host bits masked', () => {
    expect(hostAt(parseVmCidr('10.0.2.0/24', 4), 1)).toBe('10.0.2.1');
    expect(hostAt(parseVmCidr('10.0.2.77/24', 4), 2)).toBe('10.0.2.2');
    expect(hostAt(parseVmCidr('fd10:0:2::/120', 6), 2)).toBe('fd10:0:2::2');
    expect(hostAt(parseVmCidr('fd10:0:2::ff/120', 6), 1)).toBe('fd10:0:2::1');
    expect(hostAt(parseVmCidr('10.0.0.0/30', 4), 2)).toBe('10.0.0.2');
  });

  it('rejects too-small, wrong-family and malformed CIDRs', () => {
    for (const [text, fam] of [
      ['10.0.0.0/31', 4],
      ['fd00::/127', 6],
      ['10.0.0.0', 4],
      ['10.0.0.0/33', 4],
      ['fd00::/64', 4],
      ['10.0.0.0/24', 6],
      ['nonsense/8', 4],
    ] as const) {
      expect(() => parseVmCidr(text, fam), text).toThrow(VmCidrError);
    }
  });

  it('formats IPv6 as RFC 5952 and round-trips any address', () => {
    expect(formatAddress(6, parseAddress('FD10:0000:0002:0:0:0:0:0002').value)).toBe('fd10:0:2::2');
    expect(formatAddress(6, parseAddress('1:0:0:2:0:0:0:3').value)).toBe('1:0:0:2::3');
    expect(formatAddress(6, parseAddress('1:0:2:3:4:5:6:7').value)).toBe('1:0:2:3:4:5:6:7');
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        if (ip.includes('.')) return true;
        const { value } = parseAddress(ip);
        return parseAddress(formatAddress(6, value)).value === value;
      }),
    );
    fc.assert(fc.property(fc.ipV4(), (ip) => formatAddress(4, parseAddress(ip).value) === ip));
  });

  it('global unicast as Go defines it', () => {
    for (const yes of ['10.244.1.7', '8.8.8.8', 'fd00::1', '2001:db8::1']) expect(isGlobalUnicast(yes), yes).toBe(true);
    for (const no of [
      '127.0.0.1',
      '0.0.0.0',
      '169.254.1.1',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'ff02::1',
    ]) {
      expect(isGlobalUnicast(no), no).toBe(false);
    }
  });
});
