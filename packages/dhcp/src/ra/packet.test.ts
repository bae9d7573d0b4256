import { describe, expect, it } from 'vitest';
import { DhcpConfigError, DhcpDecodeError, DhcpEncodeError } from '../errors.js';
import { parseIPv6 } from '../addr.js';
import {
  NdOpt,
  PREFIX_AUTONOMOUS,
  PREFIX_ON_LINK,
  RA_MANAGED,
  decodeNdMessage,
  encodeRouterAdvertisement,
  encodeRouterSolicitation,
} from './packet.js';
import { prepareRa } from './prepare.js';
import { solicitationProblem } from './server.js';

const mac = Buffer.from('020000000000', 'hex');
const linkLocal = { address: 'fe80::5054:ff:fe00:1', scopeId: 3, hopLimit: 255 };
const raCfg = { prefix: 'fd10:0:2::2/120', routerLifetimeSeconds: 0, mtu: 0, intervalSeconds: 0, dnsServers: [] };

describe('router advertisement codec', () => {
  it('encodes the RFC 4861 layout byte for byte', () => {
    const bytes = encodeRouterAdvertisement({
      curHopLimit: 64,
      flags: RA_MANAGED,
      routerLifetime: 1800,
      reachableTime: 0,
      retransTimer: 0,
      sourceMac: mac,
      prefixes: [],
      mtu: 1400,
      dnsServers: [],
      dnsLifetime: 0,
    });
    expect(bytes.toString('hex')).toBe(
      // type 134, code 0, checksum 0, hop limit 64, M flag, lifetime 1800, reachable 0, retrans 0
      '8600000040800708' +
        '00000000' +
        '00000000' +
        // source link-layer address option (type 1, 1 x 8 bytes)
        '0101020000000000' +
        // MTU option (type 5, 1 x 8 bytes, reserved, 1400)
        '0501000000000578',
    );
  });

  it('round-trips prefix, MTU and RDNSS options', () => {
    const prefix = parseIPv6('fd10:0:2::')!;
    const dns = parseIPv6('fd00::10')!;
    const ra = {
      curHopLimit: 64,
      flags: RA_MANAGED,
      routerLifetime: 600,
      reachableTime: 1,
      retransTimer: 2,
      sourceMac: mac,
      prefixes: [{ prefix, prefixLength: 120, flags: PREFIX_ON_LINK, validLifetime: 100, preferredLifetime: 50 }],
      mtu: 1450,
      dnsServers: [dns],
      dnsLifetime: 600,
    };
    const decoded = decodeNdMessage(encodeRouterAdvertisement(ra));
    expect(decoded.type).toBe('ra');
    if (decoded.type !== 'ra') return;
    expect(decoded.prefixes).toEqual(ra.prefixes);
    expect(decoded.mtu).toBe(1450);
    expect(decoded.dnsServers).toEqual([dns]);
    expect(decoded.dnsLifetime).toBe(600);
    expect(decoded.sourceMac).toEqual(mac);
    expect(decoded.routerLifetime).toBe(600);
    expect(decoded.flags).toBe(RA_MANAGED);
  });

  it('decodes a router solicitation with and without a source link-layer address', () => {
    const withMac = decodeNdMessage(encodeRouterSolicitation(Buffer.from('525400000001', 'hex')));
    expect(withMac).toMatchObject({ type: 'rs', sourceMac: Buffer.from('525400000001', 'hex') });
    expect(decodeNdMessage(encodeRouterSolicitation())).toMatchObject({ type: 'rs', sourceMac: undefined });
  });

  it.each([
    ['empty', ''],
    ['3 bytes', '850000'],
    ['code 1', '8501000000000000'],
    ['short RS', '850000000000'],
    ['option of length 0', '85000000000000000100'],
    ['option past the end', '850000000000000001025254'],
    ['neighbor solicitation', '8700000000000000'],
    ['short RA', '86000000400007'],
  ])('refuses %s with a DhcpDecodeError', (_name, hex) => {
    expect(() => decodeNdMessage(Buffer.from(hex, 'hex'))).toThrow(DhcpDecodeError);
  });

  it('never throws anything but DhcpDecodeError on random bytes', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let n = 0; n < 5000; n++) {
      const data = Buffer.alloc(next() % 80, 0);
      for (let i = 0; i < data.length; i++) data[i] = next() & 0xff;
      // Half of them look like ND messages so the option parser is exercised too.
      if (n % 2 === 0 && data.length > 1) [data[0], data[1]] = [133 + (n % 4 === 0 ? 1 : 0), 0];
      try {
        decodeNdMessage(data);
      } catch (e) {
        expect(e).toBeInstanceOf(DhcpDecodeError);
      }
    }
  });

  it('refuses to encode an option that is not a multiple of 8 bytes', () => {
    expect(() =>
      encodeRouterAdvertisement({
        curHopLimit: 64,
        flags: 0,
        routerLifetime: 0,
        reachableTime: 0,
        retransTimer: 0,
        sourceMac: Buffer.from('0200', 'hex'),
        prefixes: [],
        mtu: undefined,
        dnsServers: [],
        dnsLifetime: 0,
      }),
    ).toThrow(DhcpEncodeError);
  });
});

describe('prepareRa', () => {
  it('announces the network of the guest CIDR on-link, not autonomous, with the managed flag', () => {
    const p = prepareRa('k6t-eth0', '02:00:00:00:00:00', { ...raCfg, mtu: 1400, dnsServers: ['fd00::10'] });
    const ra = decodeNdMessage(p.advertisement);
    if (ra.type !== 'ra') throw new Error('not an RA');
    expect(ra.flags & RA_MANAGED).toBe(RA_MANAGED);
    expect(ra.routerLifetime).toBe(1800);
    expect(ra.prefixes).toHaveLength(1);
    expect(ra.prefixes[0]!.prefix).toEqual(parseIPv6('fd10:0:2::'));
    expect(ra.prefixes[0]!.prefixLength).toBe(120);
    expect(ra.prefixes[0]!.flags & PREFIX_ON_LINK).toBe(PREFIX_ON_LINK);
    expect(ra.prefixes[0]!.flags & PREFIX_AUTONOMOUS).toBe(0);
    expect(ra.mtu).toBe(1400);
    expect(ra.dnsServers).toEqual([parseIPv6('fd00::10')]);
    expect(ra.options.some((o) => o.type === NdOpt.SourceLinkLayer)).toBe(true);
    expect(p.intervalMs).toBe(10_000);
  });

  it.each([
    ['prefix', { prefix: '10.0.2.0/24' }],
    ['routerLifetimeSeconds', { routerLifetimeSeconds: 9001 }],
    ['intervalSeconds', { routerLifetimeSeconds: 30, intervalSeconds: 30 }],
    ['mtu', { mtu: 1000 }],
    ['dnsServers', { dnsServers: ['10.0.0.1'] }],
  ])('names the bad field %s', (fieldName, bad) => {
    let err: unknown;
    try {
      prepareRa('k6t-eth0', '', { ...raCfg, ...bad });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DhcpConfigError);
    expect((err as DhcpConfigError).field).toBe(`v6.routerAdvert.${fieldName}`);
  });
});

describe('solicitationProblem', () => {
  const rs = encodeRouterSolicitation(Buffer.from('525400000001', 'hex'));
  it('answers a link-local solicitation with hop limit 255', () => {
    expect(solicitationProblem(rs, linkLocal)).toBeUndefined();
  });
  it('ignores one that was routed (hop limit below 255)', () => {
    expect(solicitationProblem(rs, { ...linkLocal, hopLimit: 64 })).toMatch(/hop limit/);
  });
  it('ignores an unspecified source that carries a link-layer address', () => {
    expect(solicitationProblem(rs, { ...linkLocal, address: '::' })).toMatch(/unspecified/);
  });
  it('throws DhcpDecodeError (counted as malformed) for garbage', () => {
    expect(() => solicitationProblem(Buffer.from('85000000000000000100', 'hex'), linkLocal)).toThrow(DhcpDecodeError);
  });
});
