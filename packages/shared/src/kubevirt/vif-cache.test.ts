// The vif-cache codec against bytes KubeVirt's own Go code wrote (testdata/kubevirt-vif-cache, recorded from
// KubeVirt v1.9.0's pkg/network/cache with Go 1.26; its README.md says how). decode-cases.json holds inputs
// with Go's json.Unmarshal verdict on each, so every refusal and every acceptance here is Go's own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeVifCache,
  encodeVifCache,
  VIF_CACHE_MAX_BYTES,
  VIF_CACHE_MAX_ROUTES,
  VifCacheError,
  type VifCacheDhcpConfig,
} from './vif-cache.js';

const DIR = join(import.meta.dirname, '../../testdata/kubevirt-vif-cache');
const vectors = readdirSync(DIR).filter((f) => f.endsWith('.gojson'));
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');

interface DecodeCase {
  name: string;
  input: string;
  goAccepts: boolean;
  goError?: string;
  goRemarshaled?: string;
}
const cases = JSON.parse(read('decode-cases.json')) as DecodeCase[];

/** Go accepts these, we refuse them: nothing the launcher could serve (field named in the error). */
const STRICTER: Record<string, string> = {
  'ip-without-mask': 'IP.Mask',
  'mask-null-with-ip': 'IP.Mask',
  'mask-without-ip': 'IP.IP',
  'mask-not-contiguous': 'IP.Mask',
  'mask-ipv4-on-ipv6': 'IPv6.Mask',
  'mask-wrong-length': 'IP.Mask',
  'mac-empty-string': 'MAC',
  'mac-wrong-length': 'MAC',
  'mac-8-bytes': 'MAC',
  'mac-array': 'MAC',
};
/** Go accepts these and so do we, but what we write back drops what the launcher does not use. */
const NORMALIZED = new Set([
  'ipv4-with-16-byte-mask', // written back with a 4-byte mask
  'ip-empty-string', // an Addr whose IPNet holds nothing: written as no address
  'addr-peer-and-broadcast', // Peer, Broadcast, Label are not carried
  'route-scope-link', // a route's Scope is not carried
  'route-multipath', // nor its MultiPath
  'mplsdst-number', // nor MPLSDst
  'int-min', // nor Priority
]);

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('encodeVifCache / decodeVifCache on the files KubeVirt wrote', () => {
  it('has the six recorded vectors', () => {
    expect(vectors.sort()).toEqual([
      'ipam-disabled.gojson',
      'ipv4-mac-gateway.gojson',
      'ipv4-prefix-32-odd-routes.gojson',
      'ipv4-routes.gojson',
      'no-ipv4-named.gojson',
      'phase2-filled.gojson',
    ]);
  });

  it.each(vectors)('%s decodes and encodes back to the same bytes', (file) => {
    const text = read(file);
    expect(encodeVifCache(decodeVifCache(text, file))).toBe(text);
  });

  it('reads routes as discoverbridge.go writes them: default (Dst null), via a gateway, on-link', () => {
    expect(decodeVifCache(read('ipv4-routes.gojson'), 'ipv4-routes.gojson')).toEqual({
      name: '',
      ipv4: { address: '10.244.7.7', prefixLength: 24 },
      mac: '02:aa:bb:cc:dd:ee',
      gateway: '10.244.7.1',
      routes: [
        { gateway: '10.244.7.1' },
        { destination: '10.99.0.0/16', gateway: '10.244.7.254' },
        { destination: '192.168.50.0/24' },
      ],
      mtu: 0,
      ipamDisabled: false,
      subdomain: '',
    } satisfies VifCacheDhcpConfig);
  });

  it('writes phase 1 of an interface without IPv4 exactly as Go does: IPAMDisabled and zeros', () => {
    const config: VifCacheDhcpConfig = { name: '', mtu: 0, ipamDisabled: true, subdomain: '' };
    expect(encodeVifCache(config)).toBe(read('ipam-disabled.gojson'));
  });

  it('writes what phase 2 fills in (name, IPv6, advertising addresses, MTU, subdomain) as Go does', () => {
    const config: VifCacheDhcpConfig = {
      name: 'eth0',
      ipv4: { address: '10.244.7.7', prefixLength: 24 },
      ipv6: { address: 'fd10:244:0::7', prefixLength: 64 },
      mac: '0A:58:0A:F4:07:07',
      advertisingIpv4: '169.254.75.10',
      advertisingIpv6: 'fe80::1',
      routes: [{ gateway: '10.244.7.1' }],
      mtu: 1400,
      ipamDisabled: false,
      gateway: '10.244.7.1',
      subdomain: 'my-sub',
    };
    expect(encodeVifCache(config)).toBe(read('phase2-filled.gojson'));
  });
});

describe('decodeVifCache against Go json.Unmarshal verdicts (decode-cases.json)', () => {
  it('covers refusals and acceptances', () => {
    expect(cases.filter((c) => c.goAccepts).length).toBeGreaterThan(15);
    expect(cases.filter((c) => !c.goAccepts).length).toBeGreaterThan(15);
  });

  it.each(cases.filter((c) => !c.goAccepts))('refuses $name as Go does ($goError)', (c) => {
    const err = thrown(() => decodeVifCache(c.input, '/p/vif-cache-eth0.json')) as VifCacheError;
    expect(err).toBeInstanceOf(VifCacheError);
    // Go names no field only when the text is not JSON or the whole value has the wrong type.
    const wholeFile = /^(unexpected end|invalid character|json: cannot unmarshal \w+ into Go value)/.test(c.goError!);
    expect(err.field === '').toBe(wholeFile);
  });

  it.each(cases.filter((c) => c.goAccepts && STRICTER[c.name]))('refuses $name although Go takes it', (c) => {
    const err = thrown(() => decodeVifCache(c.input, '/p/vif-cache-eth0.json')) as VifCacheError;
    expect(err).toBeInstanceOf(VifCacheError);
    expect(err.field).toBe(STRICTER[c.name]);
  });

  it.each(cases.filter((c) => c.goAccepts && !STRICTER[c.name]))('takes $name as Go does', (c) => {
    const config = decodeVifCache(c.input, 'case');
    if (!NORMALIZED.has(c.name)) expect(encodeVifCache(config)).toBe(c.goRemarshaled);
  });

  it('lists only cases that exist', () => {
    const names = new Set(cases.map((c) => c.name));
    for (const n of [...Object.keys(STRICTER), ...NORMALIZED]) expect(names.has(n), n).toBe(true);
  });
});

describe('decodeVifCache errors name the file and the field', () => {
  const PATH = '/var/run/kubevirt-private/vif-cache-eth0.json';
  it.each([
    ['{"Name":"eth0",', '', /not JSON: unexpected end of JSON input/],
    ['{"Mtu":"1400"}', 'Mtu', /string into Go type uint16/],
    ['{"Mtu":-1}', 'Mtu', /-1 does not fit Go type uint16/],
    ['{"Mtu":70000}', 'Mtu', /70000 does not fit/],
    ['{"MAC":"0a:58:0a:f4:07:07"}', 'MAC', /not standard base64/],
    ['{"MAC":"ClgK9Ac="}', 'MAC', /5 bytes/],
    ['{"IP":{"IP":"10.0.0.300","Mask":"////AA=="}}', 'IP.IP', /invalid IP address/],
    ['{"IP":{"IP":"fd10::1","Mask":"//////////8AAAAAAAAAAA=="}}', 'IP.IP', /not an IPv4 address/],
    ['{"IP":{"IP":"10.0.0.1","Mask":"/wD/AA=="}}', 'IP.Mask', /not a prefix mask/],
    ['{"Routes":[{},{"Dst":{"IP":"10.0.0.0"}}]}', 'Routes[1].Dst.Mask', /missing/],
    ['{"Routes":[{"Scope":256}]}', 'Routes[0].Scope', /uint8/],
    ['{"Routes":[{"Encap":{}}]}', 'Routes[0].Encap', /only null/],
    ['{"Gateway":"<nil>"}', 'Gateway', /invalid IP address/],
    ['{"IPAMDisabled":1}', 'IPAMDisabled', /number into Go type bool/],
  ])('%s → %s', (input, field, reason) => {
    const err = thrown(() => decodeVifCache(input, PATH)) as VifCacheError;
    expect(err).toBeInstanceOf(VifCacheError);
    expect(err).toMatchObject({ path: PATH, field });
    expect(err.message).toMatch(reason);
    expect(err.message.startsWith(PATH)).toBe(true);
  });

  it(`refuses a file over ${VIF_CACHE_MAX_BYTES} bytes and more than ${VIF_CACHE_MAX_ROUTES} routes, saying so`, () => {
    const big = `{"Name":"${'x'.repeat(VIF_CACHE_MAX_BYTES)}"}`;
    expect(() => decodeVifCache(big, PATH)).toThrow(/more than the 65536 a vif-cache may have/);
    const routes = `{"Routes":[${Array(VIF_CACHE_MAX_ROUTES + 1)
      .fill('{}')
      .join(',')}]}`;
    expect(thrown(() => decodeVifCache(routes, PATH))).toMatchObject({ field: 'Routes' });
    expect(() => decodeVifCache(routes, PATH)).toThrow(/257 elements, more than the 256/);
    const ok = `{"Routes":[${Array(VIF_CACHE_MAX_ROUTES).fill('null').join(',')}]}`;
    expect(decodeVifCache(ok, PATH).routes).toHaveLength(VIF_CACHE_MAX_ROUTES);
  });
});

describe('encodeVifCache refuses what Go could not hold', () => {
  const base: VifCacheDhcpConfig = { name: '', mtu: 0, ipamDisabled: false, subdomain: '' };
  it.each([
    [{ ...base, mtu: 65536 }, 'Mtu'],
    [{ ...base, mtu: 1.5 }, 'Mtu'],
    [{ ...base, mac: '0a:58:0a:f4:07' }, 'MAC'],
    [{ ...base, ipv4: { address: 'fd10::1', prefixLength: 64 } }, 'IP.IP'],
    [{ ...base, ipv4: { address: '10.0.0.1', prefixLength: 33 } }, 'IP.Mask'],
    [{ ...base, gateway: '10.0.0' }, 'Gateway'],
    [{ ...base, routes: [{ destination: '10.0.0.0' }] }, 'Routes[0].Dst'],
  ] satisfies Array<[VifCacheDhcpConfig, string]>)('%j → %s', (config, field) => {
    expect(thrown(() => encodeVifCache(config))).toMatchObject({ name: 'VifCacheError', field });
  });
});
