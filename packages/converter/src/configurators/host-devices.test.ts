import { describe, expect, it } from 'vitest';
import { HostDevice } from '../gen/virtlauncher/converter/v1/converter.js';
import { run, vmi } from '../testing/fixture.js';
import { hostDevices } from './host-devices.js';

describe('host devices', () => {
  it('generic, GPU, SR-IOV in that order; PCI addresses parsed', () => {
    const d = run(hostDevices, vmi(), {
      sriovDevices: [
        HostDevice.fromPartial({ type: 'pci', alias: 'sriov-net1', pciAddress: '0000:81:01.0', bootOrder: 2 }),
      ],
      gpuHostDevices: [HostDevice.fromPartial({ type: 'mdev', alias: 'gpu-g', mdevUuid: 'abc', display: true })],
    });
    expect(d.devices.hostdevs.map((h) => h.alias?.name)).toEqual(['ua-gpu-g', 'ua-sriov-net1']);
    expect(d.devices.hostdevs[1]).toMatchObject({
      managed: 'no',
      bootOrder: 2,
      source: { address: { domain: '0x0000', bus: '0x81', slot: '0x01', function: '0x0' } },
    });
  });
  it('a bad PCI address names the context field', () => {
    expect(() =>
      run(hostDevices, vmi(), { genericHostDevices: [HostDevice.fromPartial({ type: 'pci', pciAddress: 'nope' })] }),
    ).toThrow('context.genericHostDevices[0].pciAddress');
  });
  it('a DRA mediated host device is vfio-ap on s390x; a vGPU and other architectures stay vfio-pci', () => {
    const ctx = {
      genericHostDevices: [HostDevice.fromPartial({ type: 'mdev', alias: 'dra-hostdevice-ap', mdevUuid: 'u1' })],
      gpuHostDevices: [HostDevice.fromPartial({ type: 'mdev', alias: 'dra-gpu-v', mdevUuid: 'u2' })],
    };
    const models = (architecture?: string) =>
      run(hostDevices, vmi({}, { architecture }), ctx).devices.hostdevs.map((h) => h.model);
    expect(models('s390x')).toEqual(['vfio-ap', 'vfio-pci']);
    expect(models('amd64')).toEqual(['vfio-pci', 'vfio-pci']);
    expect(models()).toEqual(['vfio-pci', 'vfio-pci']);
  });
});
