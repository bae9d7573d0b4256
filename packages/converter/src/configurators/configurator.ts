// What every configurator is: one step that reads the VMI and the resolved context and fills in its
// part of the domain. The builder runs them in KubeVirt's order.
import type { Resolved } from '../context/resolve.js';
import type { Domain } from '../domain/types.js';
import type { VirtualMachineInstance } from '../vmi/types.js';

export interface Configurator {
  readonly name: string;
  configure(vmi: VirtualMachineInstance, domain: Domain, ctx: Resolved): void;
}

/** libvirt's "ua-" prefix marks aliases the user chose (KubeVirt strips it again when reading back). */
export function userAlias(name: string): { name: string } {
  return { name: `ua-${name}` };
}

export function onOff(enabled: boolean | undefined, fallback = true): 'on' | 'off' {
  return (enabled ?? fallback) ? 'on' : 'off';
}

/** Parses a VMI pciAddress (0000:81:01.0) into libvirt's address attributes. */
export function pciAddress(
  text: string,
  field: string,
  fail: (field: string, value: string) => never,
): { type: 'pci'; domain: string; bus: string; slot: string; function: string } {
  const match = /^([0-9a-fA-F]{4}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$/.exec(text);
  if (!match) return fail(field, text);
  return {
    type: 'pci',
    domain: `0x${match[1]}`,
    bus: `0x${match[2]}`,
    slot: `0x${match[3]}`,
    function: `0x${match[4]}`,
  };
}
