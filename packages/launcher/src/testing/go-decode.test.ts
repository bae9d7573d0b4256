import { describe, expect, it } from 'vitest';
import { GoDecodeError, goDecode } from './go-decode.js';

const status = { Status: 'Running', Reason: 'Unknown', Interfaces: null, PanicCount: 0 };

describe('goDecode (json.Unmarshal into KubeVirt structs, strict)', () => {
  it('accepts keys Go knows, embedded TypeMeta inlined, nulls for pointers and slices', () => {
    const doc = {
      kind: 'Domain',
      apiVersion: '1.2.2',
      ObjectMeta: { name: 'vm' },
      Spec: { Name: 'x' },
      Status: status,
    };
    expect(goDecode('Domain', JSON.stringify(doc))).toEqual(doc);
  });

  it('rejects a key that is not a field, and a key in the wrong case', () => {
    expect(() => goDecode('Domain', { Spec: { Nmae: 'x' } })).toThrow(GoDecodeError);
    expect(() => goDecode('Domain', { Spec: { name: 'x' } })).toThrow(/Domain\.Spec\.name: no field of DomainSpec/);
    expect(() => goDecode('Domain', { TypeMeta: {} })).toThrow(/TypeMeta/); // embedded: its fields are inlined
  });

  it('rejects a value of the wrong JSON type', () => {
    expect(() => goDecode('Domain', { Spec: { Memory: { Value: '1024', Unit: 'KiB' } } })).toThrow(
      /Spec\.Memory\.Value: Go wants an unsigned integer/,
    );
    expect(() => goDecode('Domain', { Spec: { Name: 7 } })).toThrow(/a string/);
    expect(() => goDecode('Domain', { Spec: { Devices: { Disks: {} } } })).toThrow(/an array/);
    expect(() => goDecode('Domain', { Spec: { Devices: 'none' } })).toThrow(/an object/);
    expect(() => goDecode('Domain', { Status: { PanicCount: 1.5 } })).toThrow(/an integer/);
    expect(() =>
      goDecode('Domain', { Spec: { Metadata: { KubeVirt: { AccessCredential: { Succeeded: 'yes' } } } } }),
    ).toThrow(/a bool/);
    expect(() => goDecode('Domain', { ObjectMeta: { deletionTimestamp: 'yesterday' } })).toThrow(/RFC 3339/);
  });

  it('reads the alias as its MarshalJSON shape and stats with their own table', () => {
    const iface = { Alias: { Name: 'default', UserDefined: true } };
    expect(() => goDecode('Domain', { Spec: { Devices: { Interfaces: [iface] } } })).not.toThrow();
    expect(() => goDecode('Domain', { Spec: { Devices: { Interfaces: [{ Alias: { name: 'x' } }] } } })).toThrow(
      GoDecodeError,
    );
    expect(() =>
      goDecode('DomainStats', { Name: 'x', CPUMap: [[true, false]], CPUMapSet: true }, 'stats'),
    ).not.toThrow();
    expect(() => goDecode('DomainStats', { CPUMap: [[1]] }, 'stats')).toThrow(/CPUMap\[0\]\[0\]: Go wants a bool/);
  });
});
