import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConversionError } from '../errors.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { parseVmi } from './parse.js';

type Iface = Record<string, unknown>;

/** A VMI whose first interface (on the network `net`, the pod network unless said) is `iface`. */
function vmiText(iface: Iface, network: Iface = { pod: {} }): string {
  return JSON.stringify({
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'vm', namespace: 'ns' },
    spec: {
      domain: { resources: { requests: { memory: '64Mi' } }, devices: { interfaces: [{ name: 'net', ...iface }] } },
      networks: [{ name: 'net', ...network }],
    },
  });
}

function refusal(iface: Iface, network?: Iface): ConversionError {
  try {
    parseVmi(vmiText(iface, network));
  } catch (error) {
    if (error instanceof ConversionError) return error;
    throw error;
  }
  throw new Error('no error');
}

const range = (protocol: unknown, start: unknown, end: unknown) => ({ protocol, start, end });
const IFACE = 'spec.domain.devices.interfaces[0]';

describe('portRanges (KubeVirt admission rules of PortRangesSpec)', () => {
  it('a masquerade interface of the pod network keeps its ranges, and the domain converts', () => {
    const portRanges = [range('TCP', 8000, 8010), range('UDP', 8000, 8010), range('TCP', 22, 22)];
    const vmi = parseVmi(vmiText({ masquerade: {}, portRanges }));
    expect(vmi.spec.domain.devices.interfaces?.[0]?.portRanges).toEqual(portRanges);
    // The pod network set-up forwards them; the converter no longer refuses them.
    expect(() => convert(vmi, ConverterContext.fromPartial({}))).not.toThrow();
  });

  it('ten ranges are the most, adjacent ranges do not overlap', () => {
    const ten = Array.from({ length: 10 }, (_, i) => range('TCP', 1000 + i * 10, 1009 + i * 10));
    expect(() => parseVmi(vmiText({ masquerade: {}, portRanges: ten }))).not.toThrow();
    expect(refusal({ masquerade: {}, portRanges: [...ten, range('UDP', 1, 2)] })).toMatchObject({
      field: `${IFACE}.portRanges`,
      value: 11,
    });
  });

  it.each([
    ['beside ports', { masquerade: {}, ports: [{ port: 80 }] }, `${IFACE}.portRanges`, /together with ports/],
    ['on a bridge interface', { bridge: {} }, `${IFACE}.portRanges`, /only supported on a masquerade interface/],
  ])('refused %s, naming the field', (_what, iface, field, message) => {
    const e = refusal({ ...iface, portRanges: [range('TCP', 80, 81)] });
    expect(e.field).toBe(field);
    expect(e.message).toMatch(message);
  });

  it.each([
    [range('SCTP', 1, 2), 'protocol', 'SCTP'],
    [range('tcp', 1, 2), 'protocol', 'tcp'],
    [range(undefined, 1, 2), 'protocol', undefined],
    [range('TCP', 0, 2), 'start', 0],
    [range('TCP', 65536, 65536), 'start', 65536],
    [range('TCP', '80', 81), 'start', '80'],
    [range('UDP', 10, 65536), 'end', 65536],
    [range('UDP', 10, 1.5), 'end', 1.5],
    [range('UDP', 10, 9), 'start', 10],
  ])('refuses %j naming its %s', (bad, key, value) => {
    const e = refusal({ masquerade: {}, portRanges: [range('TCP', 8000, 8010), bad] });
    expect(e.field).toBe(`${IFACE}.portRanges[1].${key}`);
    expect(e.value).toEqual(value);
  });

  it('refuses two ranges of one protocol sharing a port, naming both', () => {
    const e = refusal({ masquerade: {}, portRanges: [range('TCP', 8005, 8020), range('TCP', 8000, 8005)] });
    expect(e.field).toBe(`${IFACE}.portRanges`);
    expect(e.message).toContain('TCP ranges 8000-8005 and 8005-8020 overlap');
  });

  it('refuses a portRanges that is not a list', () => {
    expect(refusal({ masquerade: {}, portRanges: { protocol: 'TCP' } }).field).toBe(`${IFACE}.portRanges`);
  });

  it('on a Multus network the rules do not apply, as in KubeVirt (nothing there is NATed)', () => {
    const multus = { multus: { networkName: 'other' } };
    expect(() => parseVmi(vmiText({ bridge: {}, portRanges: [range('SCTP', 9, 1)] }, multus))).not.toThrow();
  });
});
