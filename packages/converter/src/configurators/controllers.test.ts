import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { controllers } from './controllers.js';

describe('controllers', () => {
  it('usb none, scsi for hot-plug, virtio-serial on amd64', () => {
    expect(run(controllers, vmi()).devices.controllers.map((c) => `${c.type}:${c.model}`)).toEqual([
      'usb:none',
      'scsi:virtio-non-transitional',
      'virtio-serial:virtio-non-transitional',
    ]);
  });
  it('usb tablet needs qemu-xhci; disableHotplug drops scsi; pcihole64 annotation', () => {
    const v = vmi({
      devices: {
        inputs: [{ name: 't', type: 'tablet', bus: 'usb' }],
        disableHotplug: true,
        autoattachSerialConsole: false,
      },
    });
    v.metadata.annotations = { 'kubevirt.io/disablePCIHole64': 'true' };
    expect(run(controllers, v).devices.controllers).toEqual([
      { type: 'usb', index: 0, model: 'qemu-xhci' },
      { type: 'pci', index: 0, model: 'pcie-root', pcihole64: 0 },
    ]);
  });
  it('s390x: no usb, virtio-scsi', () => {
    expect(
      run(controllers, vmi(), { architecture: 's390x' }).devices.controllers.map((c) => `${c.type}:${c.model}`),
    ).toEqual(['usb:none', 'scsi:virtio-scsi', 'virtio-serial:virtio']);
  });
  it('a SCSI disk with a dedicated IOThread: the controller takes the next shared thread and a queue per vCPU', () => {
    const v = vmi({
      ioThreadsPolicy: 'auto',
      cpu: { cores: 2 },
      resources: { requests: { memory: '1Gi', cpu: '2' } },
      devices: {
        disks: [
          { name: 'v1', disk: { bus: 'virtio' } },
          { name: 's', disk: { bus: 'scsi' }, dedicatedIOThread: true },
          { name: 'v2', disk: { bus: 'virtio' } },
        ],
      },
    });
    const scsi = run(controllers, v).devices.controllers.find((c) => c.type === 'scsi');
    // Two shared threads; the two virtio disks take 1 and 2, so the round-robin is back at 1.
    expect(scsi?.driver).toEqual({ iothread: 1, queues: 2 });
    // Only the virtio disks move the round-robin: a shared SCSI disk does not.
    v.spec.domain.devices.disks![2] = { name: 's2', disk: { bus: 'scsi' } };
    expect(run(controllers, v).devices.controllers.find((c) => c.type === 'scsi')?.driver).toEqual({
      iothread: 2,
      queues: 2,
    });
  });
  it('no SCSI IOThread without a dedicated SCSI disk or with the supplemental pool', () => {
    const scsiDisk = { name: 's', disk: { bus: 'scsi' }, dedicatedIOThread: true };
    const shared = vmi({ ioThreadsPolicy: 'shared', devices: { disks: [{ name: 's', disk: { bus: 'scsi' } }] } });
    expect(run(controllers, shared).devices.controllers.find((c) => c.type === 'scsi')?.driver).toBeUndefined();
    const pool = vmi({
      ioThreadsPolicy: 'supplementalPool',
      ioThreads: { supplementalPoolThreadCount: 2 },
      devices: { disks: [scsiDisk] },
    });
    expect(run(controllers, pool).devices.controllers.find((c) => c.type === 'scsi')?.driver).toBeUndefined();
  });
});
