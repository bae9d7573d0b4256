// Capacities of empty and host disks: Kubernetes quantities (parsed by @virt-launcher/shared) turned into a
// whole number of bytes, rounded up like resource.Quantity.Value(), then aligned down to whole MiB by the caller.
import { ceilValue, isNegative, parseQuantity } from '@virt-launcher/shared';
import { InvalidQuantityError } from './errors.js';

/** The byte count of a capacity; a typed error when it is not a quantity or is negative. */
export function parseCapacity(text: string): bigint {
  const quantity = parseQuantity(text);
  if (quantity === undefined) {
    throw new InvalidQuantityError(text, 'expected a number with an optional suffix (Ki, Mi, Gi, M, G, e9, ...)');
  }
  if (isNegative(quantity)) throw new InvalidQuantityError(text, 'must not be negative');
  return ceilValue(quantity);
}

export const MIB = 1n << 20n;

export function alignDownToMiB(bytes: bigint): bigint {
  return (bytes / MIB) * MIB;
}
