import { describe, expect, it } from 'vitest';
import { decodeClasslessRoutes, encodeClasslessRoutes } from './classless-routes.js';
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';

describe('option 121 (RFC 3442)', () => {
  // RFC 3442 §3 table: subnet/mask -> destination descriptor (width then significant octets).
  const rfcTable: Array<[string, number[]]> = [
    ['0.0.0.0/0', [0]],
    ['10.0.0.0/8', [8, 10]],
    ['10.0.0.0/24', [24, 10, 0, 0]],
    ['10.17.0.0/16', [16, 10, 17]],
    ['10.27.129.0/24', [24, 10, 27, 129]],
    ['10.229.0.128/25', [25, 10, 229, 0, 128]],
    ['10.198.122.47/32', [32, 10, 198, 122, 47]],
  ];
  it.each(rfcTable)('encodes the RFC example %s', (destination, descriptor) => {
    const bytes = encodeClasslessRoutes([{ destination, gateway: '10.0.0.1' }]);
    expect([...bytes]).toEqual([...descriptor, 10, 0, 0, 1]);
    expect(decodeClasslessRoutes(bytes)).toEqual([{ destination, gateway: '10.0.0.1' }]);
  });

  it("encodes KubeVirt's on-link multicast + gateway route vector", () => {
    const bytes = encodeClasslessRoutes([
      { destination: '224.0.0.0/4', gateway: '' },
      { destination: '192.168.1.0/24', gateway: '192.168.2.1' },
    ]);
    expect([...bytes]).toEqual([4, 224, 0, 0, 0, 0, 24, 192, 168, 1, 192, 168, 2, 1]);
  });

  it("encodes KubeVirt's vector with the default route moved last", () => {
    const bytes = encodeClasslessRoutes([
      { destination: '0.0.0.0/0', gateway: '10.129.0.1' },
      { destination: '10.128.0.0/14', gateway: '0.0.0.0' },
      { destination: '224.0.0.0/4', gateway: '' },
    ]);
    expect([...bytes]).toEqual([14, 10, 128, 0, 0, 0, 0, 4, 224, 0, 0, 0, 0, 0, 10, 129, 0, 1]);
  });

  it('masks host bits of the destination', () => {
    expect([...encodeClasslessRoutes([{ destination: '10.1.2.3/16', gateway: '' }])]).toEqual([16, 10, 1, 0, 0, 0, 0]);
  });

  it('rejects bad input with typed errors', () => {
    expect(() => encodeClasslessRoutes([{ destination: '10.0.0.0/33', gateway: '' }])).toThrow(DhcpEncodeError);
    expect(() => encodeClasslessRoutes([{ destination: '10.0.0.0/8', gateway: 'x' }])).toThrow(DhcpEncodeError);
    expect(() => decodeClasslessRoutes(Uint8Array.from([33, 1, 1, 1, 1, 0, 0, 0, 0]))).toThrow(DhcpDecodeError);
    expect(() => decodeClasslessRoutes(Uint8Array.from([24, 10, 0, 0, 10]))).toThrow(DhcpDecodeError);
  });
});
