import { describe, expect, it } from 'vitest';
import { devicesFromPlugins, type DeviceRequest, type ListOptions } from './device-plugins.js';
import { HostDeviceError } from './errors.js';

const HOST: ListOptions = {
  listField: 'spec.domain.devices.hostDevices',
  aliasPrefix: 'hostdevice-',
  gpu: false,
  usb: true,
};
const GPU: ListOptions = { listField: 'spec.domain.devices.gpus', aliasPrefix: 'gpu-', gpu: true, usb: false };
const UUID1 = 'c2177883-f1bb-47f0-914d-32a22e3a8804';
const UUID2 = '6a3b1e40-0d2c-4f7e-9a51-2b8d7c0e1f23';

function refusal(list: DeviceRequest[], env: Record<string, string>, options: ListOptions): HostDeviceError {
  try {
    devicesFromPlugins(list, env, options);
  } catch (err) {
    if (err instanceof HostDeviceError) return err;
    throw err;
  }
  throw new Error('expected a HostDeviceError');
}

describe('host devices and GPUs from the device plugins’ variables', () => {
  it('nothing asked, nothing read', () => {
    expect(devicesFromPlugins([], { PCI_RESOURCE_X: '0000:81:01.0' }, HOST)).toEqual([]);
  });

  it('each device takes the next address of its resource, in VMI order', () => {
    const devices = devicesFromPlugins(
      [
        { name: 'nic1', deviceName: 'intel.com/qat' },
        { name: 'nic2', deviceName: 'intel.com/qat' },
      ],
      { PCI_RESOURCE_INTEL_COM_QAT: '0000:3d:01.0,0000:3d:01.1' },
      HOST,
    );
    expect(devices.map((d) => [d.type, d.alias, d.pciAddress])).toEqual([
      ['pci', 'hostdevice-nic1', '0000:3d:01.0'],
      ['pci', 'hostdevice-nic2', '0000:3d:01.1'],
    ]);
    expect(devices.every((d) => !d.display && !d.ramfb && d.mdevUuid === '')).toBe(true);
  });

  it('PCI devices come first, then mediated devices, whatever the VMI order', () => {
    const devices = devicesFromPlugins(
      [
        { name: 'v', deviceName: 'nvidia.com/GRID_T4-1Q' },
        { name: 'p', deviceName: 'nvidia.com/TU104GL_Tesla_T4' },
      ],
      {
        'MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q': UUID1,
        PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4: '0000:65:00.0',
      },
      GPU,
    );
    expect(devices.map((d) => [d.type, d.alias, d.pciAddress || d.mdevUuid])).toEqual([
      ['pci', 'gpu-p', '0000:65:00.0'],
      ['mdev', 'gpu-v', UUID1],
    ]);
  });

  it('a vGPU list without display options shows the first vGPU with ramfb, and only that one', () => {
    const devices = devicesFromPlugins(
      [
        { name: 'a', deviceName: 'nvidia.com/GRID_T4-1Q' },
        { name: 'b', deviceName: 'nvidia.com/GRID_T4-1Q' },
      ],
      { 'MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q': `${UUID1},${UUID2}` },
      GPU,
    );
    expect(devices.map((d) => [d.alias, d.display, d.ramfb])).toEqual([
      ['gpu-a', true, true],
      ['gpu-b', false, false],
    ]);
  });

  it('vGPU display options: given means on, enabled:false means off, ramFB can be turned off', () => {
    const env = { 'MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q': `${UUID1},${UUID2},` };
    const devices = devicesFromPlugins(
      [
        { name: 'a', deviceName: 'nvidia.com/GRID_T4-1Q', virtualGPUOptions: { display: { enabled: false } } },
        {
          name: 'b',
          deviceName: 'nvidia.com/GRID_T4-1Q',
          virtualGPUOptions: { display: { ramFB: { enabled: false } } },
        },
      ],
      env,
      GPU,
    );
    expect(devices.map((d) => [d.alias, d.display, d.ramfb])).toEqual([
      ['gpu-a', false, false],
      ['gpu-b', true, false],
    ]);
  });

  it('a PCI GPU shows a display only when enabled explicitly', () => {
    const env = { PCI_RESOURCE_NVIDIA_COM_T4: '0000:65:00.0,0000:66:00.0' };
    const devices = devicesFromPlugins(
      [
        { name: 'a', deviceName: 'nvidia.com/T4', virtualGPUOptions: { display: {} } },
        { name: 'b', deviceName: 'nvidia.com/T4', virtualGPUOptions: { display: { enabled: true } } },
      ],
      env,
      GPU,
    );
    expect(devices.map((d) => [d.alias, d.display, d.ramfb])).toEqual([
      ['gpu-a', false, false],
      ['gpu-b', true, true],
    ]);
  });

  it('a generic mediated device never gets a display, even if its JSON carries GPU options', () => {
    const [dev] = devicesFromPlugins(
      [{ name: 'm', deviceName: 'vendor.com/mdev', virtualGPUOptions: { display: { enabled: true } } }],
      { MDEV_PCI_RESOURCE_VENDOR_COM_MDEV: UUID1 },
      HOST,
    );
    expect([dev?.type, dev?.display, dev?.ramfb]).toEqual(['mdev', false, false]);
  });

  it('a USB device takes bus:device from USB_RESOURCE_*, is named usb-host-<name> and comes after PCI and mdev', () => {
    const devices = devicesFromPlugins(
      [
        { name: 'u', deviceName: 'kubevirt.io/storage' },
        { name: 'p', deviceName: 'intel.com/qat' },
      ],
      { USB_RESOURCE_KUBEVIRT_IO_STORAGE: '3:12', PCI_RESOURCE_INTEL_COM_QAT: '0000:3d:01.0' },
      HOST,
    );
    expect(devices.map((d) => [d.type, d.alias, d.pciAddress, d.usbBus, d.usbDevice])).toEqual([
      ['pci', 'hostdevice-p', '0000:3d:01.0', '', ''],
      ['usb', 'usb-host-u', '', '3', '12'],
    ]);
  });

  it('GPUs are never looked up as USB devices', () => {
    const err = refusal(
      [{ name: 'g', deviceName: 'kubevirt.io/storage' }],
      { USB_RESOURCE_KUBEVIRT_IO_STORAGE: '1:5' },
      GPU,
    );
    expect(err.source).toBe('PCI_RESOURCE_KUBEVIRT_IO_STORAGE, MDEV_PCI_RESOURCE_KUBEVIRT_IO_STORAGE');
  });

  it('GPU and host-device lists draw from separate pools, as KubeVirt’s do', () => {
    const env = { PCI_RESOURCE_VENDOR_COM_X: '0000:81:00.0' };
    expect(devicesFromPlugins([{ name: 'g', deviceName: 'vendor.com/x' }], env, GPU)[0]?.pciAddress).toBe(
      '0000:81:00.0',
    );
    expect(devicesFromPlugins([{ name: 'h', deviceName: 'vendor.com/x' }], env, HOST)[0]?.pciAddress).toBe(
      '0000:81:00.0',
    );
  });
});

describe('refusals name the VMI field and the variable', () => {
  it('no variable at all', () => {
    const err = refusal([{ name: 'g', deviceName: 'nvidia.com/T4' }], {}, GPU);
    expect(err.field).toBe('spec.domain.devices.gpus[0]');
    expect(err.message).toContain('PCI_RESOURCE_NVIDIA_COM_T4 is not set');
    expect(err.message).toContain('MDEV_PCI_RESOURCE_NVIDIA_COM_T4 is not set');
  });

  it('more devices than the plugin allocated', () => {
    const err = refusal(
      [
        { name: 'a', deviceName: 'nvidia.com/T4' },
        { name: 'b', deviceName: 'nvidia.com/T4' },
      ],
      { PCI_RESOURCE_NVIDIA_COM_T4: '0000:65:00.0' },
      GPU,
    );
    expect(err.field).toBe('spec.domain.devices.gpus[1]');
    expect(err.message).toContain('PCI_RESOURCE_NVIDIA_COM_T4 has no address left');
  });

  it('a resource allocated as both PCI and mdev', () => {
    const err = refusal(
      [{ name: 'a', deviceName: 'nvidia.com/T4' }],
      { PCI_RESOURCE_NVIDIA_COM_T4: '0000:65:00.0', MDEV_PCI_RESOURCE_NVIDIA_COM_T4: UUID1 },
      GPU,
    );
    expect(err.source).toBe('PCI_RESOURCE_NVIDIA_COM_T4, MDEV_PCI_RESOURCE_NVIDIA_COM_T4');
  });

  it.each([['0000:65:00.0/../../x'], ["0000:65:00.0'/><hostdev"], ['65:00.0'], [' 0000:65:00.0'], ['0000:65:00.9']])(
    'a malformed PCI address %j',
    (address) => {
      const err = refusal([{ name: 'a', deviceName: 'nvidia.com/T4' }], { PCI_RESOURCE_NVIDIA_COM_T4: address }, GPU);
      expect([err.field, err.source, err.value]).toEqual([
        'spec.domain.devices.gpus[0]',
        'PCI_RESOURCE_NVIDIA_COM_T4',
        address,
      ]);
    },
  );

  it.each([['not-a-uuid'], ['../../devices/x'], [`${UUID1}x`]])('a malformed mdev UUID %j', (uuid) => {
    const err = refusal([{ name: 'a', deviceName: 'v.com/m' }], { MDEV_PCI_RESOURCE_V_COM_M: uuid }, HOST);
    expect([err.field, err.source, err.value]).toEqual([
      'spec.domain.devices.hostDevices[0]',
      'MDEV_PCI_RESOURCE_V_COM_M',
      uuid,
    ]);
  });

  it.each([['1:5x'], ['0x1:5'], ["1:5'/>"], ['1'], ['1:2:3']])('a malformed USB address %j', (address) => {
    const err = refusal(
      [{ name: 'u', deviceName: 'kubevirt.io/storage' }],
      { USB_RESOURCE_KUBEVIRT_IO_STORAGE: address },
      HOST,
    );
    expect([err.field, err.source, err.value]).toEqual([
      'spec.domain.devices.hostDevices[0]',
      'USB_RESOURCE_KUBEVIRT_IO_STORAGE',
      address,
    ]);
  });

  it.each([[undefined], [''], ['a/b/c'], ['x;reboot'], [42]])('deviceName %j', (deviceName) => {
    const err = refusal([{ name: 'a', deviceName }], {}, GPU);
    expect(err.field).toBe('spec.domain.devices.gpus[0].deviceName');
  });

  it.each([[undefined], [''], [7]])('name %j', (name) => {
    const err = refusal([{ name, deviceName: 'nvidia.com/T4' }], { PCI_RESOURCE_NVIDIA_COM_T4: '0000:65:00.0' }, GPU);
    expect(err.field).toBe('spec.domain.devices.gpus[0].name');
  });

  it('a DRA claim is left to the claims reader', () => {
    const list = [
      { name: 'a', claimName: 'gpu-claim', requestName: 'r' },
      { name: 'b', deviceName: '', claimName: 'gpu-claim' },
    ];
    expect(devicesFromPlugins(list, { PCI_RESOURCE_X: '0000:81:01.0' }, HOST)).toEqual([]);
  });

  it('a device plugin index still names the VMI entry after a DRA entry', () => {
    const err = refusal(
      [
        { name: 'a', requestName: 'r' },
        { name: 'b', deviceName: 'x.com/y' },
      ],
      {},
      HOST,
    );
    expect(err.field).toBe('spec.domain.devices.hostDevices[1]');
  });

  it('a deviceName and a DRA claim on one device', () => {
    const err = refusal([{ name: 'a', deviceName: 'x.com/y', claimName: 'c', requestName: 'r' }], {}, GPU);
    expect(err.field).toBe('spec.domain.devices.gpus[0].claimName');
    expect(err.message).toContain('not both');
  });
});
