import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { sysinfo } from './sysinfo.js';

describe('sysinfo', () => {
  it('firmware uuid/serial and the non-empty SMBIOS facts; empty values are left out', () => {
    const d = run(sysinfo, vmi({ firmware: { uuid: 'u', serial: 's' }, chassis: { asset: 'a1' } }), {
      smbios: { manufacturer: 'KubeVirt', product: '', version: '1', sku: '', family: 'f' },
    });
    expect(d.sysinfo?.system.map((e) => e.name)).toEqual(['uuid', 'serial', 'manufacturer', 'family', 'version']);
    expect(d.sysinfo?.chassis).toEqual([{ name: 'asset', value: 'a1' }]);
  });
});
