// <memory> and <maxMemory>: guest memory, and the hot-plug ceiling from memory.maxGuest.
import { ConversionError, quote } from '../errors.js';
import { parseQuantity, toBytes } from '@virt-launcher/shared';
import type { VirtualMachineInstance } from '../vmi/types.js';
import type { Configurator } from './configurator.js';

function bytesOf(text: string, field: string): bigint {
  const q = parseQuantity(text);
  if (!q) throw new ConversionError(field, text, `${quote(text)} is not a quantity`);
  const bytes = toBytes(q);
  // A negative size would reach libvirt as a huge unsigned number; KubeVirt refuses it here too.
  if (bytes < 0n) throw new ConversionError(field, text, `${quote(text)} must be greater than or equal to 0`);
  return bytes;
}

/** memory.guest, else the memory request, else the limit. */
export function guestMemoryBytes(vmi: VirtualMachineInstance): bigint {
  const domain = vmi.spec.domain;
  if (domain.memory?.guest !== undefined) return bytesOf(domain.memory.guest, 'spec.domain.memory.guest');
  const request = domain.resources?.requests?.memory;
  if (request !== undefined) return bytesOf(request, 'spec.domain.resources.requests.memory');
  const limit = domain.resources?.limits?.memory;
  if (limit !== undefined) return bytesOf(limit, 'spec.domain.resources.limits.memory');
  throw new ConversionError('spec.domain.resources.requests.memory', undefined, 'no memory is set (nor memory.guest)');
}

export const memory: Configurator = {
  name: 'memory',
  configure(vmi, domain) {
    const guest = guestMemoryBytes(vmi);
    domain.memoryBytes = guest;
    const maxGuest = vmi.spec.domain.memory?.maxGuest;
    if (maxGuest === undefined) return;
    const max = bytesOf(maxGuest, 'spec.domain.memory.maxGuest');
    if (max < guest) {
      throw new ConversionError(
        'spec.domain.memory.maxGuest',
        maxGuest,
        `${quote(maxGuest)} is less than the guest memory`,
      );
    }
    if (max !== guest) domain.maxMemory = { bytes: max, slots: 0 };
  },
};
