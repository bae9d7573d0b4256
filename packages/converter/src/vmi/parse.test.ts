import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConversionError } from '../errors.js';
import { parseVmi } from './parse.js';

const vmA = readFileSync(new URL('../../examples/vm-a.yaml', import.meta.url), 'utf8');

function errorOf(text: string): ConversionError {
  try {
    parseVmi(text);
  } catch (error) {
    if (error instanceof ConversionError) return error;
    throw error;
  }
  throw new Error('no error');
}

const base = (domain: string) =>
  `apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\nmetadata: {name: x}\nspec:\n  domain:\n${domain}`;

describe('parseVmi', () => {
  it('applies the API defaults a plain YAML lacks', () => {
    const vmi = parseVmi(vmA);
    expect(vmi.metadata.namespace).toBe('demo');
    expect(vmi.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(vmi.spec.domain.firmware?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(vmi.spec.domain.memory).toEqual({ guest: '2Gi', maxGuest: '8589934592' });
    expect(vmi.spec.domain.machine?.type).toBe('q35');
    expect(vmi.spec.domain.cpu).toMatchObject({ cores: 2, sockets: 1, threads: 1, model: 'host-model' });
  });
  it('same text, same VMI (deterministic uid and firmware uuid)', () => {
    expect(parseVmi(vmA)).toEqual(parseVmi(vmA));
  });
  it('defaults disk and cdrom buses, cdrom readonly/tray, disks for bare volumes, the pod network', () => {
    const vmi = parseVmi(
      base(
        '    resources: {requests: {memory: 64Mi}}\n    devices:\n      disks: [{name: c, cdrom: {}}]\n  volumes: [{name: c, configMap: {name: m}}, {name: e, emptyDisk: {capacity: 1Gi}}]',
      ),
    );
    expect(vmi.spec.domain.devices.disks).toEqual([
      { name: 'c', cdrom: { bus: 'sata', readonly: true, tray: 'closed' } },
      { name: 'e', disk: { bus: 'sata' } },
    ]);
    expect(vmi.spec.domain.devices.interfaces).toEqual([{ name: 'default', masquerade: {} }]);
    expect(vmi.spec.domain.memory?.maxGuest).toBeUndefined();
  });
  it('quantities may be YAML numbers', () => {
    expect(
      parseVmi(base('    resources: {requests: {memory: 1073741824}}\n    devices: {}')).spec.domain.memory?.guest,
    ).toBe('1073741824');
  });
  it.each([
    [
      base('    memory: {guest: 2Gx}\n    devices: {}'),
      'spec.domain.memory.guest',
      'spec.domain.memory.guest: "2Gx" is not a quantity',
    ],
    [
      base('    devices: {disks: [{name: a, disk: {bus: ide}}]}'),
      'spec.domain.devices.disks[0].disk.bus',
      '"ide" is not one of virtio, sata, scsi, usb',
    ],
    [base('    devices: {}'), 'spec.domain.resources.requests.memory', 'no memory is set'],
    [
      base('    resources: {requests: {memory: 1Gi}}\n    cpu: {cores: -1}\n    devices: {}'),
      'spec.domain.cpu.cores',
      'is not a non-negative integer',
    ],
    ['apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {}', 'apiVersion', '"v1" is not kubevirt.io/v1'],
    ['{"apiVersion": ', 'input', 'is not valid JSON'],
    ['a: [1,', 'input', 'is not valid YAML'],
    ['', 'input', 'is empty'],
  ])('rejects bad input with the field path (%#)', (text, field, message) => {
    const error = errorOf(text);
    expect(error.field).toBe(field);
    expect(error.message).toContain(message);
  });
});
