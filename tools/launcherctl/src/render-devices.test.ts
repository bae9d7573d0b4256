import { describe, expect, it } from 'vitest';
import { deviceRows } from './render-devices.js';
import { describeDomain } from './render.js';

const devices = {
  Disks: [
    {
      Device: 'disk',
      Source: { File: '/var/run/kubevirt/hotplug-disks/hp.img', Dev: '' },
      Target: { Bus: 'virtio', Device: 'vdb' },
      Alias: { Name: 'hp', UserDefined: true },
    },
  ],
  Interfaces: [
    {
      Type: 'ethernet',
      MAC: { MAC: '02:00:00:12:34:56' },
      Target: { Device: 'tap1a2b3c4d5e6', Managed: 'no' },
      LinkState: { State: 'down' },
      Alias: { Name: 'blue', UserDefined: true },
    },
    { Type: 'user', MAC: { MAC: '52:54:00:00:00:01' }, Alias: { Name: 'net0' } },
  ],
};

describe('live devices in `launcherctl domain`', () => {
  it('one row per disk and interface: target, alias, backing, link state', () => {
    expect(deviceRows(devices)).toEqual([
      ['disk vdb', 'hp disk virtio /var/run/kubevirt/hotplug-disks/hp.img'],
      ['interface blue', '02:00:00:12:34:56 ethernet tap1a2b3c4d5e6 link down'],
      ['interface (net0)', '52:54:00:00:00:01 user - link up'],
    ]);
    expect(deviceRows({})).toEqual([]);
  });

  it('describeDomain lists them', () => {
    const text = describeDomain({ Spec: { Name: 'default_g', Devices: devices }, Status: {} });
    expect(text).toMatch(/disk vdb\s+hp disk virtio \/var\/run\/kubevirt\/hotplug-disks\/hp\.img/);
    expect(text).toMatch(/interface blue\s+02:00:00:12:34:56 ethernet tap1a2b3c4d5e6 link down/);
  });
});
