// SMBIOS tables: firmware uuid/serial, the host's SMBIOS facts, chassis. Empty values are left out:
// libvirt's schema rejects empty <entry> elements that KubeVirt's Go writer emits.
import type { SysinfoEntry } from '../domain/types.js';
import type { Configurator } from './configurator.js';

function add(list: SysinfoEntry[], name: string, value: string | undefined): void {
  if (value) list.push({ name, value });
}

export const sysinfo: Configurator = {
  name: 'sysinfo',
  configure(vmi, domain, ctx) {
    const system: SysinfoEntry[] = [];
    const chassis: SysinfoEntry[] = [];
    const firmware = vmi.spec.domain.firmware;
    if (firmware) {
      add(system, 'uuid', firmware.uuid);
      add(system, 'serial', firmware.serial);
    }
    const smbios = ctx.raw.smbios;
    if (smbios) {
      add(system, 'manufacturer', smbios.manufacturer);
      add(system, 'family', smbios.family);
      add(system, 'product', smbios.product);
      add(system, 'sku', smbios.sku);
      add(system, 'version', smbios.version);
    }
    const c = vmi.spec.domain.chassis;
    if (c) {
      add(chassis, 'manufacturer', c.manufacturer);
      add(chassis, 'version', c.version);
      add(chassis, 'serial', c.serial);
      add(chassis, 'asset', c.asset);
      add(chassis, 'sku', c.sku);
    }
    domain.sysinfo = { system, chassis };
  },
};
