import { describe, expect, it } from 'vitest';
import { parseXml } from '../../xml/parse.js';
import { decodeGoXml } from './decode-xml.js';
import { encodeGoJson, GoValueError } from './encode-json.js';

type AnyJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const spec = (inner: string): AnyJson =>
  decodeGoXml('DomainSpec', parseXml(`<domain type='kvm'><name>n</name>${inner}</domain>`)) as AnyJson;

describe("decodeGoXml (encoding/xml's rules from the table)", () => {
  it('matches a namespaced tag only in that namespace, and a prefixed tag never', () => {
    const ours = spec(`<metadata><kubevirt xmlns='http://kubevirt.io'><uid>a</uid>
      <graceperiod><deletionGracePeriodSeconds>7</deletionGracePeriodSeconds></graceperiod></kubevirt></metadata>`);
    expect(ours.Metadata.KubeVirt).toEqual({ UID: 'a', GracePeriod: { DeletionGracePeriodSeconds: 7 } });
    const prefixed = spec(
      `<metadata><kv:kubevirt xmlns:kv='http://kubevirt.io'><kv:uid>b</kv:uid></kv:kubevirt></metadata>`,
    );
    expect(prefixed.Metadata.KubeVirt).toEqual({ UID: 'b' });
    const other = spec(`<metadata><kubevirt xmlns='http://example.org'><uid>c</uid></kubevirt></metadata>`);
    expect(other.Metadata).toEqual({});
  });

  it('reads attributes, chardata, nested paths, empty elements, and ignores what Go ignores', () => {
    const s = spec(`<memory unit='KiB'> 1024 </memory><unknown a='1'/><features><acpi/><pmu state='off'/></features>
      <sysinfo type='smbios'><chassis><entry name='asset'>tag</entry></chassis></sysinfo>`);
    expect(s.Memory).toEqual({ Value: 1024, Unit: 'KiB' });
    expect(s.Features).toEqual({ ACPI: {}, PMU: { State: 'off' } });
    expect(s.SysInfo).toEqual({ Type: 'smbios', Chassis: [{ Name: 'asset', Value: 'tag' }] });
    expect(s).not.toHaveProperty('unknown');
    expect(s.XMLName).toEqual({ Space: '', Local: 'domain' });
  });

  it('parses numbers as Go does and names the field when they do not parse', () => {
    expect(spec(`<vcpu placement='static'>4</vcpu>`).VCPU).toEqual({ Placement: 'static', CPUs: 4 });
    expect(() => spec(`<vcpu>-1</vcpu>`)).toThrow(GoValueError); // uint32
    expect(() => spec(`<vcpu>4</vcpu><cpu><topology sockets='two'/></cpu>`)).toThrow(
      /DomainSpec\.CPU\.Topology\.Sockets: "two" is not a Go integer/,
    );
  });
});

describe("encodeGoJson (encoding/json's rules from the table)", () => {
  it('writes every field with its zero value, inlines TypeMeta, honours json omitempty', () => {
    const json = encodeGoJson('Domain', { TypeMeta: { Kind: 'Domain' }, ObjectMeta: { Name: 'x' } }) as AnyJson;
    expect(json.kind).toBe('Domain');
    expect(json).not.toHaveProperty('apiVersion'); // omitempty and empty
    expect(json.ObjectMeta).toEqual({ name: 'x', creationTimestamp: null });
    expect(json.Spec.Devices.Disks).toBeNull();
    expect(json.Spec.Memory).toEqual({ Value: 0, Unit: '' });
    expect(json.Status.GuestPanicInfo).toBeNull();
  });

  it('refuses a value of the wrong Go type with the field path', () => {
    expect(() => encodeGoJson('Domain', { Status: { PanicCount: 'many' } })).toThrow(/Domain\.Status\.PanicCount/);
    expect(() => encodeGoJson('Domain', { ObjectMeta: { DeletionTimestamp: 'soon' } })).toThrow(GoValueError);
    expect(encodeGoJson('Domain', { ObjectMeta: { DeletionTimestamp: '2026-01-02T03:04:05.678Z' } })).toMatchObject({
      ObjectMeta: { deletionTimestamp: '2026-01-02T03:04:05Z' },
    });
  });
});
