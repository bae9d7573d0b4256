import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import type { Interface } from '../vmi/types.js';
import { interfaces } from './interfaces.js';

function nic(iface: Partial<Interface>, ctx = {}, devices = {}) {
  const v = vmi(
    { devices: { interfaces: [{ name: 'default', ...iface }], ...devices } },
    { networks: [{ name: 'default', pod: {} }] },
  );
  return run(interfaces, v, ctx).devices.interfaces;
}

describe('interfaces', () => {
  it('masquerade: ethernet with tap target, pod MAC and MTU from the context, rom off', () => {
    expect(
      nic({ masquerade: {} }, { podInterfaces: { default: { tapName: 'tap0', mac: '02:00:00:aa:bb:cc', mtu: 1450 } } }),
    ).toEqual([
      {
        type: 'ethernet',
        model: { type: 'virtio-non-transitional' },
        alias: { name: 'ua-default' },
        mac: '02:00:00:aa:bb:cc',
        target: { dev: 'tap0', managed: 'no' },
        mtu: 1450,
        rom: { enabled: 'no' },
      },
    ]);
  });
  it('spec MAC wins; boot order keeps the ROM; e1000 model; link down', () => {
    const [i] = nic(
      { bridge: {}, macAddress: '02:11:22:33:44:55', bootOrder: 2, model: 'e1000', state: 'down' },
      { podInterfaces: { default: { tapName: 'tap0', mac: 'ff', mtu: 0 } } },
    );
    expect(i).toMatchObject({
      mac: '02:11:22:33:44:55',
      bootOrder: 2,
      model: { type: 'e1000' },
      link: { state: 'down' },
    });
    expect(i?.rom).toBeUndefined();
    expect(i?.mtu).toBeUndefined();
  });
  it('multiqueue: vhost driver with one queue per vCPU', () => {
    const v = vmi(
      {
        cpu: { cores: 4 },
        devices: { networkInterfaceMultiqueue: true, interfaces: [{ name: 'default', masquerade: {} }] },
      },
      { networks: [{ name: 'default', pod: {} }] },
    );
    expect(run(interfaces, v).devices.interfaces[0]?.driver).toEqual({ name: 'vhost', queues: 4, iommu: undefined });
  });
  it('SR-IOV and non-tap plugins are not interfaces; a missing network is an error', () => {
    expect(nic({ sriov: {} })).toEqual([]);
    expect(nic({ binding: { name: 'x' } }, { domainAttachmentByInterfaceName: { default: 'managedTap-not' } })).toEqual(
      [],
    );
    expect(nic({ binding: { name: 'x' } }, { domainAttachmentByInterfaceName: { default: 'tap' } })).toHaveLength(1);
    const v = vmi({ devices: { interfaces: [{ name: 'nope', masquerade: {} }] } });
    expect(() => run(interfaces, v)).toThrow('failed to find network nope');
  });
  it('no ROM tuning on s390x', () => {
    expect(nic({ masquerade: {} }, { architecture: 's390x' })[0]?.rom).toBeUndefined();
  });
});
