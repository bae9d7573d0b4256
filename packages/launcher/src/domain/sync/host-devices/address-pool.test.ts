import { describe, expect, it } from 'vitest';
import { isMdevUuid, isPciAddress, isResourceName, isUsbAddress, resourceEnvVar } from './addresses.js';
import { AddressPool } from './address-pool.js';

describe('resource names become the device plugins’ variable names', () => {
  it('upper-cases and turns / and . into _', () => {
    expect(resourceEnvVar('PCI_RESOURCE', 'nvidia.com/GP102GL_Tesla_P40')).toBe(
      'PCI_RESOURCE_NVIDIA_COM_GP102GL_TESLA_P40',
    );
    expect(resourceEnvVar('MDEV_PCI_RESOURCE', 'nvidia.com/GRID_T4-1Q')).toBe(
      'MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q',
    );
  });

  it('accepts extended resource names and refuses anything a plugin could not have registered', () => {
    expect(isResourceName('intel.com/qat')).toBe(true);
    expect(isResourceName('kubevirt.io/usb-storage')).toBe(true);
    for (const bad of ['', 'a/b/c', 'x=1', 'nvidia.com/$(reboot)', '../etc', 'a b', 'nvidia.com/', '/gpu', 'é.com/x']) {
      expect(isResourceName(bad), bad).toBe(false);
    }
  });
});

describe('address shapes', () => {
  it('PCI: dddd:bb:ss.f in hex, function 0-7, nothing around it', () => {
    expect(isPciAddress('0000:81:01.0')).toBe(true);
    expect(isPciAddress('0000:AF:1f.7')).toBe(true);
    for (const bad of ['0000:81:01.8', '81:01.0', '0000:81:01.0 ', ' 0000:81:01.0', '0000:81:01.0\n', '0000:81:01:0']) {
      expect(isPciAddress(bad), JSON.stringify(bad)).toBe(false);
    }
    expect(isPciAddress("0000:81:01.0'/><foo")).toBe(false);
    expect(isPciAddress('../../../../etc/passwd')).toBe(false);
  });

  it('mdev: an 8-4-4-4-12 hex UUID', () => {
    expect(isMdevUuid('c2177883-f1bb-47f0-914d-32a22e3a8804')).toBe(true);
    expect(isMdevUuid('C2177883-F1BB-47F0-914D-32A22E3A8804')).toBe(true);
    for (const bad of [
      'c2177883f1bb47f0914d32a22e3a8804',
      'c2177883-f1bb-47f0-914d-32a22e3a880',
      'g2177883-f1bb-47f0-914d-32a22e3a8804',
      '../x',
    ]) {
      expect(isMdevUuid(bad), bad).toBe(false);
    }
  });

  it('USB: decimal bus:device', () => {
    expect(isUsbAddress('1:5')).toBe(true);
    expect(isUsbAddress('0x1:5')).toBe(false);
    expect(isUsbAddress('1:5:3')).toBe(false);
  });
});

describe('AddressPool', () => {
  const env = {
    PCI_RESOURCE_VENDOR_COM_A: '0000:81:01.0,0000:81:01.1,',
    PCI_RESOURCE_VENDOR_COM_B: '0000:81:01.1,0000:82:00.0',
    PCI_RESOURCE_VENDOR_COM_EMPTY: '',
  };

  it('hands out addresses in order and drops a trailing comma', () => {
    const pool = new AddressPool('PCI_RESOURCE', ['vendor.com/a'], env);
    expect(pool.pop('vendor.com/a')).toEqual({ kind: 'address', address: '0000:81:01.0' });
    expect(pool.pop('vendor.com/a')).toEqual({ kind: 'address', address: '0000:81:01.1' });
    expect(pool.pop('vendor.com/a')).toEqual({ kind: 'exhausted' });
  });

  it('an address taken through one resource is gone from every other resource', () => {
    const pool = new AddressPool('PCI_RESOURCE', ['vendor.com/a', 'vendor.com/b'], env);
    pool.pop('vendor.com/a');
    expect(pool.pop('vendor.com/a')).toEqual({ kind: 'address', address: '0000:81:01.1' });
    expect(pool.pop('vendor.com/b')).toEqual({ kind: 'address', address: '0000:82:00.0' });
    expect(pool.pop('vendor.com/b')).toEqual({ kind: 'exhausted' });
  });

  it('tells an unset variable from an empty one', () => {
    const pool = new AddressPool('PCI_RESOURCE', ['vendor.com/empty', 'vendor.com/none'], env);
    expect(pool.pop('vendor.com/empty')).toEqual({ kind: 'exhausted' });
    expect(pool.pop('vendor.com/none')).toEqual({ kind: 'unset' });
    expect(pool.envVar('vendor.com/none')).toBe('PCI_RESOURCE_VENDOR_COM_NONE');
  });
});
