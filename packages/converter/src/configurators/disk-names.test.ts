import { describe, expect, it } from 'vitest';
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
});
