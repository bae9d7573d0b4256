import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { parseVmi } from '../vmi/parse.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { assignTargets, indexToSuffix, suffixToIndex } from './disk-names.js';

describe('disk target names', () => {
  it.each([
    [0, 'a'],
    [25, 'z'],
    [26, 'aa'],
    [51, 'az'],
    [52, 'ba'],
    [701, 'zz'],
    [702, 'aaa'],
  ])('index %i is %s and back', (index, suffix) => {
    expect(indexToSuffix(index)).toBe(suffix);
    expect(suffixToIndex(suffix)).toBe(index);
  });

  it('keeps status targets and gives the rest the lowest free names', () => {
    const vmi = {
      spec: {
        domain: {
          devices: {
            disks: [
              { name: 'a', disk: { bus: 'virtio' } },
              { name: 'b', disk: { bus: 'virtio' } },
              { name: 'c', cdrom: { bus: 'sata' } },
              { name: 'd', disk: { bus: 'scsi' } },
            ],
          },
        },
      },
      status: { volumeStatus: [{ name: 'b', target: 'vda' }] },
    } as unknown as VirtualMachineInstance;
    expect(Object.fromEntries(assignTargets(vmi))).toEqual({ a: 'vdb', b: 'vda', c: 'sda', d: 'sdb' });
  });

  it('rejects an unknown bus with the field path', () => {
    const vmi = {
      spec: { domain: { devices: { disks: [{ name: 'x', disk: { bus: 'ide' } }] } } },
    } as unknown as VirtualMachineInstance;
    expect(() => assignTargets(vmi)).toThrow(
      'spec.domain.devices.disks[0].bus: "ide" is not virtio, sata, scsi or usb',
    );
  });

  it('10,000 disks on two buses, some targets reserved: every name unique, lowest free first, in spec order', () => {
    const count = 10_000;
    const disks = Array.from({ length: count }, (_, i) => ({
      name: `d${i}`,
      disk: { bus: i % 2 === 0 ? 'virtio' : 'sata' },
    }));
    // Status keeps vda for d9998 and sdb for d1 (already named by an earlier sync).
    const vmi = {
      spec: { domain: { devices: { disks } } },
      status: {
        volumeStatus: [
          { name: 'd9998', target: 'vda' },
          { name: 'd1', target: 'sdb' },
        ],
      },
    } as unknown as VirtualMachineInstance;
    const targets = assignTargets(vmi);
    expect(targets.size).toBe(count);
    expect(new Set(targets.values()).size).toBe(count);
    expect(targets.get('d9998')).toBe('vda');
    expect(targets.get('d0')).toBe('vdb');
    expect(targets.get('d2')).toBe('vdc');
    expect(targets.get('d1')).toBe('sdb');
    expect(targets.get('d3')).toBe('sda');
    expect(targets.get('d5')).toBe('sdc');
    // The n-th unreserved virtio disk (after vda) gets index n + 1: d9996 is the 4999th (n = 4998).
    expect(targets.get('d9996')).toBe(`vd${indexToSuffix(4999)}`);
    expect(targets.get('d9999')).toBe(`sd${indexToSuffix(4999)}`);
  });

  it('a VMI with 10,000 volumes and disks converts end to end with distinct targets', () => {
    const count = 10_000;
    const vmi = parseVmi(
      JSON.stringify({
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachineInstance',
        metadata: { name: 'many', namespace: 'ns' },
        spec: {
          domain: { resources: { requests: { memory: '64Mi' } }, devices: { autoattachPodInterface: false } },
          volumes: Array.from({ length: count }, (_, i) => ({ name: `v${i}`, emptyDisk: { capacity: '1Mi' } })),
        },
      }),
    );
    const domain = convert(vmi, ConverterContext.fromPartial({ architecture: 'amd64' }));
    expect(domain.devices.disks).toHaveLength(count);
    expect(new Set(domain.devices.disks.map((d) => d.target.dev)).size).toBe(count);
    expect(domain.devices.disks[count - 1]?.target.dev).toBe(`sd${indexToSuffix(count - 1)}`);
    expect(domain.devices.disks[count - 1]?.source.file).toMatch(/\/empty-disks\/v9999\.qcow2$/);
  });
});
