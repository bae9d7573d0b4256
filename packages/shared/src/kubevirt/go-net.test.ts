// Go's net.ParseIP and IP.String, as the vif-cache codec uses them (Go's rules: no leading zeros in IPv4 parts,
// an embedded IPv4 address only at the end, no zone; IPv4-mapped addresses print as dotted decimal). Both tables
// were checked against Go 1.26.10's net.ParseIP and IP.String: each row gives what Go gave.
import { describe, expect, it } from 'vitest';
import { cidrMask, decodeGoBase64, goIpString, maskPrefixLength, parseGoIp } from './go-net.js';

const roundTrip = (text: string) => {
  const ip = parseGoIp(text);
  return ip && goIpString(ip);
};

describe('parseGoIp / goIpString', () => {
  it.each([
    ['10.244.7.7', '10.244.7.7'],
    ['::ffff:10.244.7.7', '10.244.7.7'],
    ['::FFFF:0a0b:0c0d', '10.11.12.13'],
    ['fd10:0244:0000:0000:0000:0000:0000:0007', 'fd10:244::7'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
    ['1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'],
    ['::10.1.2.3', '::a01:203'],
    ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
  ])('%s reads back as %s', (text, shown) => {
    expect(roundTrip(text)).toBe(shown);
  });

  it.each([
    '',
    '<nil>',
    '10.244.7',
    '10.244.7.300',
    '010.1.2.3',
    '10.1.2.3.4',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '::1:2:3:4:5:6:7:8',
    '1:::2',
    ':1::2',
    '1.2.3.4::',
    'fe80::1%eth0',
    '12345::',
    ' 10.0.0.1',
    '::1.2.3.04',
  ])('%j is not an address', (text) => {
    expect(parseGoIp(text)).toBeUndefined();
  });
});

describe('masks and base64', () => {
  it('reads prefix masks and refuses others', () => {
    expect(maskPrefixLength(cidrMask(24, 4))).toBe(24);
    expect(maskPrefixLength(cidrMask(0, 16))).toBe(0);
    expect(maskPrefixLength(cidrMask(128, 16))).toBe(128);
    expect(maskPrefixLength(Uint8Array.from([255, 0, 255, 0]))).toBeUndefined();
  });

  it('takes standard base64 with padding only (CR and LF skipped, as Go does)', () => {
    expect(decodeGoBase64('////AA==')).toEqual(Uint8Array.from([255, 255, 255, 0]));
    expect(decodeGoBase64('//\r\n//AA==')).toEqual(Uint8Array.from([255, 255, 255, 0]));
    expect(decodeGoBase64('')).toEqual(new Uint8Array());
    for (const bad of ['////AA', '////AA=', '____AA==', '////AA==x', '//// AA==']) {
      expect(decodeGoBase64(bad), bad).toBeUndefined();
    }
  });
});
