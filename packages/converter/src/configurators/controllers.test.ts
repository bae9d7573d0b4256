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
});
