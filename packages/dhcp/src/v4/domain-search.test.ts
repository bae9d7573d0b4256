import { describe, expect, it } from 'vitest';
import { decodeDomainSearch, encodeDomainSearch, isValidSearchDomain } from './domain-search.js';
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';

const ascii = (s: string): number[] => [...Buffer.from(s, 'ascii')];

describe('option 119 (RFC 3397)', () => {
  it('encodes the RFC 3397 example with a compression pointer', () => {
    const bytes = encodeDomainSearch(['eng.apple.com.', 'marketing.apple.com.']);
    expect([...bytes]).toEqual([
      3,
      ...ascii('eng'),
      5,
      ...ascii('apple'),
      3,
      ...ascii('com'),
      0,
      9,
      ...ascii('marketing'),
      0xc0,
      0x04,
    ]);
    expect(decodeDomainSearch(bytes)).toEqual(['eng.apple.com', 'marketing.apple.com']);
  });

  it('compresses a whole repeated suffix chain as the cluster search list', () => {
    const names = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
    const bytes = encodeDomainSearch(names);
    // First name in full (27 bytes), then a pointer each for the two suffixes.
    expect(bytes.length).toBe(27 + 2 + 2);
    expect(decodeDomainSearch(bytes)).toEqual(names);
  });

  it('lower-cases names and accepts underscores in inner labels', () => {
    expect(decodeDomainSearch(encodeDomainSearch(['_Srv.Example.COM']))).toEqual(['_srv.example.com']);
  });

  it.each([
    '',
    'bad..domain',
    '-a.com',
    'a-.com',
    'a.123',
    'x'.repeat(64) + '.com',
    'a b.com',
    `${'a.'.repeat(127)}com`,
  ])('rejects invalid name %j', (name) => {
    expect(isValidSearchDomain(name)).toBe(false);
    expect(() => encodeDomainSearch([name])).toThrow(DhcpEncodeError);
  });

  it('refuses forward pointers, loops and truncation', () => {
    expect(() => decodeDomainSearch(Uint8Array.from([0xc0, 0x00]))).toThrow(DhcpDecodeError);
    expect(() => decodeDomainSearch(Uint8Array.from([1, 97, 0xc0, 0x05]))).toThrow(DhcpDecodeError);
    expect(() => decodeDomainSearch(Uint8Array.from([3, 97, 98]))).toThrow(DhcpDecodeError);
    expect(() => decodeDomainSearch(Uint8Array.from([0x40, 0]))).toThrow(DhcpDecodeError);
  });
});
