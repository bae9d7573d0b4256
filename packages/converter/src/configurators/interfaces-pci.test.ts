// The VMI interface's pciAddress, macAddress and the pod MTU as KubeVirt's converter passes them to the domain.
import { describe, expect, it } from 'vitest';
import { ConversionError } from '../errors.js';
import { run, vmi } from '../testing/fixture.js';
import type { Interface } from '../vmi/types.js';
import { interfaces } from './interfaces.js';

function nic(iface: Partial<Interface>) {
  const v = vmi(
    { devices: { interfaces: [{ name: 'default', masquerade: {}, ...iface }] } },
    { networks: [{ name: 'default', pod: {} }] },
  );
  const ctx = { podInterfaces: { default: { tapName: 'tap0', mac: '0a:58:0a:f4:01:07', mtu: 1400 } } };
  return run(interfaces, v, ctx).devices.interfaces;
}

describe('interfaces: pciAddress, macAddress, MTU', () => {
  it('pins the NIC to its PCI address, keeps the spec MAC and carries the pod MTU', () => {
    const [i] = nic({ pciAddress: '0000:81:01.0', macAddress: '02:aa:bb:cc:dd:ee' });
    expect(i).toMatchObject({
      address: { type: 'pci', domain: '0x0000', bus: '0x81', slot: '0x01', function: '0x0' },
      mac: '02:aa:bb:cc:dd:ee',
      mtu: 1400,
    });
  });

  it('refuses a malformed pciAddress naming the field', () => {
    expect(() => nic({ pciAddress: '81:01' })).toThrow(ConversionError);
    expect(() => nic({ pciAddress: '81:01' })).toThrow(/interfaces\[0\]\.pciAddress/);
  });
});
