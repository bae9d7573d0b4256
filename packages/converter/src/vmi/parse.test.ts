import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConversionError } from '../errors.js';
import { LABEL_RULE } from './names.js';
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

describe('names (KubeVirt admission rules: they become paths)', () => {
  const withDisk = (diskName: string, volumeName = diskName) =>
    base(
      `    resources: {requests: {memory: 64Mi}}\n    devices: {disks: [{name: ${JSON.stringify(diskName)}}]}\n  volumes: [{name: ok, emptyDisk: {capacity: 1Gi}}, {name: ${JSON.stringify(volumeName)}, emptyDisk: {capacity: 1Gi}}]`,
    );

  it.each([
    ['../../etc/x', 'spec.domain.devices.disks[0].name', '"../../etc/x" is not a DNS-1123 label'],
    ['Upper', 'spec.domain.devices.disks[0].name', '"Upper" is not a DNS-1123 label'],
    ['under_score', 'spec.domain.devices.disks[0].name', 'is not a DNS-1123 label'],
    ['-dash', 'spec.domain.devices.disks[0].name', 'is not a DNS-1123 label'],
    ['a'.repeat(64), 'spec.domain.devices.disks[0].name', 'is not a DNS-1123 label'],
  ])('disk %j is refused', (diskName, field, message) => {
    const error = errorOf(withDisk(diskName, 'fine'));
    expect(error.field).toBe(field);
    expect(error.message).toContain(message);
  });

  it('a volume named ../../etc/x is refused with its index', () => {
    const error = errorOf(withDisk('fine', '../../etc/x'));
    expect(error.field).toBe('spec.volumes[1].name');
    expect(error.message).toBe(`spec.volumes[1].name: "../../etc/x" ${LABEL_RULE}`);
  });

  it('63 characters, digits first and inner dashes are fine', () => {
    const name = `0${'a-b'.repeat(20)}bc`;
    expect(name).toHaveLength(63);
    expect(parseVmi(withDisk(name)).spec.domain.devices.disks?.[0]?.name).toBe(name);
  });

  it.each([
    ['interface', 'devices: {interfaces: [{name: "a/b", masquerade: {}}]}', 'spec.domain.devices.interfaces[0].name'],
    ['network', 'devices: {}\n  networks: [{name: "../n", pod: {}}]', 'spec.networks[0].name'],
  ])('an %s name outside letters, digits, - and _ is refused', (_kind, devices, field) => {
    const error = errorOf(base(`    resources: {requests: {memory: 64Mi}}\n    ${devices}`));
    expect(error.field).toBe(field);
    expect(error.message).toContain('is not a valid interface name');
  });

  it('interfaces may use upper case and _ (KubeVirt allows them)', () => {
    const vmi = parseVmi(
      base(
        '    resources: {requests: {memory: 64Mi}}\n    devices: {interfaces: [{name: My_Nic, masquerade: {}}]}\n  networks: [{name: My_Nic, pod: {}}]',
      ),
    );
    expect(vmi.spec.domain.devices.interfaces?.[0]?.name).toBe('My_Nic');
  });

  it.each([
    ['metadata: {name: ../x}', 'metadata.name', 'is not a DNS-1123 subdomain'],
    ['metadata: {name: x, namespace: a.b}', 'metadata.namespace', 'is not a DNS-1123 label'],
  ])('object names: %s', (metadata, field, message) => {
    const error = errorOf(
      base('    resources: {requests: {memory: 64Mi}}\n    devices: {}').replace('metadata: {name: x}', metadata),
    );
    expect(error.field).toBe(field);
    expect(error.message).toContain(message);
  });

  it('without admission (KubeVirt converter test inputs) names need only be safe file names', () => {
    expect(parseVmi(withDisk('pvc_block_test'), { admission: false }).spec.domain.devices.disks?.[0]?.name).toBe(
      'pvc_block_test',
    );
    const error = (() => {
      try {
        parseVmi(withDisk('fine', '..'), { admission: false });
      } catch (e) {
        return e as ConversionError;
      }
      throw new Error('no error');
    })();
    expect(error.field).toBe('spec.volumes[1].name');
    expect(error.message).toContain('is not a safe file name');
  });

  it('a hostDisk path or kernel path must end in a file name', () => {
    const host = base(
      '    resources: {requests: {memory: 64Mi}}\n    devices: {}\n  volumes: [{name: h, hostDisk: {path: /var/.., type: Disk}}]',
    );
    expect(errorOf(host).field).toBe('spec.volumes[0].hostDisk.path');
  });
});

describe('numbers are range-checked as the API types them', () => {
  const cpu = (fields: string) =>
    base(`    resources: {requests: {memory: 64Mi}}\n    cpu: {${fields}}\n    devices: {}`);

  it.each([
    [cpu('cores: 1e20'), 'spec.domain.cpu.cores', '100000000000000000000 is out of range (0 to 4294967295)'],
    [cpu('sockets: 4294967296'), 'spec.domain.cpu.sockets', 'is out of range (0 to 4294967295)'],
    [cpu('threads: 1.5'), 'spec.domain.cpu.threads', 'is not a non-negative integer'],
    [cpu('cores: 65536, sockets: 65536'), 'spec.domain.cpu', 'gives more than 4294967295 vCPUs'],
    [
      base('    resources: {requests: {memory: 64Mi}}\n    devices: {disks: [{name: a, bootOrder: 1e10}]}'),
      'spec.domain.devices.disks[0].bootOrder',
      '10000000000 is out of range (1 to 4294967295)',
    ],
    [
      base('    resources: {requests: {memory: 64Mi}}\n    devices: {disks: [{name: a, bootOrder: 0}]}'),
      'spec.domain.devices.disks[0].bootOrder',
      '0 is out of range (1 to 4294967295)',
    ],
    [
      base('    resources: {requests: {memory: 100000000000000000000000Ei}}\n    devices: {}'),
      'spec.domain.resources.requests.memory',
      'is out of range (a quantity is at most 2^63-1)',
    ],
    [
      base('    resources: {requests: {memory: 1e30}}\n    devices: {}'),
      'spec.domain.resources.requests.memory',
      'is out of range',
    ],
  ])('%#: refused with the field named', (text, field, message) => {
    const error = errorOf(text);
    expect(error.field).toBe(field);
    expect(error.message).toContain(message);
  });

  it('the largest values pass', () => {
    const vmi = parseVmi(
      base('    resources: {requests: {memory: 7Ei}}\n    cpu: {cores: 4294967295}\n    devices: {}'),
    );
    expect(vmi.spec.domain.cpu?.cores).toBe(4294967295);
  });
});

describe('input is quoted in errors, never echoed raw', () => {
  it.each([
    ['ESC', '\u001b[2J', '\\u001b[2J'],
    ['CR', 'a\rb', 'a\\rb'],
    ['U+2028', 'a\u2028b', 'a\\u2028b'],
    ['bidi override', 'a\u202eb', 'a\\u202eb'],
  ])('%s in a value', (_kind, raw, escaped) => {
    const error = errorOf(base(`    memory: {guest: ${JSON.stringify(raw)}}\n    devices: {}`));
    expect(error.message).toBe(`spec.domain.memory.guest: "${escaped}" is not a quantity`);
    // eslint-disable-next-line no-control-regex
    expect(error.message).not.toMatch(/[\u0000-\u001f\u2028\u202e]/);
  });

  it('control characters in a key (part of the field path) and in parser messages', () => {
    const key = errorOf(base('    resources: {requests: {"m\\u001bx": 2Gx}}\n    devices: {}'));
    expect(key.message).toContain('requests.m\\u001bx');
    expect(key.message).not.toContain('\u001b');
    const json = errorOf('{"a": \u001b}');
    expect(json.field).toBe('input');
    expect(json.message).not.toContain('\u001b');
  });
});
