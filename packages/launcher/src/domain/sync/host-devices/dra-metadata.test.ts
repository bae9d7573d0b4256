import { describe, expect, it } from 'vitest';
import { DRA_METADATA_API_VERSION, parseDraMetadata, stringAttribute } from './dra-metadata.js';

const V1 = DRA_METADATA_API_VERSION;
const doc = (apiVersion: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion, kind: 'DeviceMetadata', metadata: { name: 'c1' }, ...extra });
const withRequest = (pciBusID: string) => ({
  requests: [
    {
      name: 'r1',
      devices: [{ driver: 'gpu.example.com', attributes: { 'resource.kubernetes.io/pciBusID': { string: pciBusID } } }],
    },
  ],
});

describe('DRA device metadata stream (KEP-5304)', () => {
  it('reads the claim, its requests and a device’s string attributes', () => {
    const md = parseDraMetadata(doc(V1, withRequest('0000:02:00.0')));
    expect(md.name).toBe('c1');
    expect(md.requests.map((r) => [r.name, r.devices.length])).toEqual([['r1', 1]]);
    const device = md.requests[0]?.devices[0];
    expect(device && stringAttribute(device, 'resource.kubernetes.io/pciBusID')).toBe('0000:02:00.0');
    expect(device && stringAttribute(device, 'mdevUUID')).toBeUndefined();
  });

  it('skips a newer version written first, back to back or on separate lines', () => {
    const newer = doc('metadata.resource.k8s.io/v2beta1', { requests: 'another shape' });
    for (const sep of ['', '\n', ' \t\n']) {
      const md = parseDraMetadata(`${newer}${sep}${doc(V1, withRequest('0000:03:00.1'))}\n`);
      expect(md.requests[0]?.devices[0]?.attributes['resource.kubernetes.io/pciBusID']?.string).toBe('0000:03:00.1');
    }
  });

  it('strings holding braces and quotes do not split an object', () => {
    const md = parseDraMetadata(doc(V1, { metadata: { name: 'a}"{\\"b' }, requests: [] }));
    expect(md.name).toBe('a}"{\\"b');
  });

  it('an empty or null attribute is no value; null lists are empty', () => {
    const md = parseDraMetadata(
      doc(V1, {
        requests: [
          { name: 'r', devices: [{ attributes: { mdevUUID: { string: '' } } }] },
          { name: 's', devices: null },
        ],
      }),
    );
    const device = md.requests[0]?.devices[0];
    expect(device && stringAttribute(device, 'mdevUUID')).toBeUndefined();
    expect(md.requests[1]?.devices).toEqual([]);
  });

  it.each([
    ['an empty file', '', /no metadata object/],
    ['only unknown versions', `${doc('x/v9')}${doc('x/v8')}`, /found x\/v9, x\/v8/],
    ['a non-object entry before a valid one', `"not-an-object" ${doc(V1)}`, /not an object/],
    ['an entry without apiVersion', `${JSON.stringify({ kind: 'DeviceMetadata' })}${doc(V1)}`, /no apiVersion/],
    ['an apiVersion that is not a string', doc(3), /not a string/],
    ['requests of the wrong type', doc(V1, { requests: 'no' }), /wrong type/],
    ['a request without a name', doc(V1, { requests: [{ devices: [] }] }), /requests\[0\]/],
    [
      'a device without an attribute map',
      doc(V1, { requests: [{ name: 'r', devices: [{ attributes: 1 }] }] }),
      /devices\[0\]/,
    ],
    ['a truncated object', doc(V1).slice(0, -3), /JSON|Unterminated|Expected/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parseDraMetadata(text)).toThrow(message);
  });
});
