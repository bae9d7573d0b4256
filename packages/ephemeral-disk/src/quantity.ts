// Kubernetes resource quantities ("1Gi", "500M", "1.5Ti", "1e9", "100m") parsed exactly with bigint.
// The value is rounded up to a whole number, like resource.Quantity.Value().
import { InvalidQuantityError } from './errors.js';

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/;

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXPONENT: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// Beyond this an exponent can only be a typo; it also keeps 10n ** exp from exhausting memory.
const MAX_EXPONENT = 64;

/** Exact rational value numerator / 10^scale, then scaled by the suffix, rounded up. */
export function parseQuantity(text: string): bigint {
  const match = QUANTITY.exec(text.trim());
  if (match === null)
    throw new InvalidQuantityError(text, 'expected a number with an optional suffix (Ki, Mi, Gi, M, G, e9, ...)');
  const [, sign, number = '', suffix, exponentText] = match;
  if (sign === '-') throw new InvalidQuantityError(text, 'must not be negative');
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt((whole || '0') + fraction);
  let scale = fraction.length; // value = numerator / 10^scale
  let multiplier = 1n;
  if (suffix !== undefined && suffix in BINARY) multiplier = BINARY[suffix] ?? 1n;
  let exponent = 0;
  if (suffix !== undefined && suffix in DECIMAL_EXPONENT) exponent = DECIMAL_EXPONENT[suffix] ?? 0;
  if (exponentText !== undefined) exponent = Number(exponentText);
  if (Math.abs(exponent) > MAX_EXPONENT) throw new InvalidQuantityError(text, 'exponent out of range');
  if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
  else scale -= exponent;
  numerator *= multiplier;
  const divisor = 10n ** BigInt(scale);
  return (numerator + divisor - 1n) / divisor;
}

export const MIB = 1n << 20n;

export function alignDownToMiB(bytes: bigint): bigint {
  return (bytes / MIB) * MIB;
}
