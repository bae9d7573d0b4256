// Exact Kubernetes resource.Quantity parsing: the value is kept as a fraction of big integers so that
// 1.5Gi, 500M, 1e9 and 8192Ki convert to bytes without floating-point error.

export interface Quantity {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
// Decimal suffixes as powers of ten.
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

// The same few strings are parsed by validation, defaults and several configurators: memoise them.
const cache = new Map<string, Quantity | undefined>();
const CACHE_LIMIT = 1024;

/** Parses a quantity string; returns undefined when it is not one (the caller reports the field). */
export function parseQuantity(text: string): Quantity | undefined {
  if (cache.has(text)) return cache.get(text);
  const q = parseUncached(text);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, q);
  return q;
}

function parseUncached(text: string): Quantity | undefined {
  const match = PATTERN.exec(text.trim() === text ? text : '');
  if (!match) return undefined;
  const [, sign, digits = '', suffix, exponent] = match;
  const [whole = '', fraction = ''] = digits.split('.');
  let numerator = BigInt((whole || '0') + fraction);
  let denominator = 10n ** BigInt(fraction.length);
  if (sign === '-') numerator = -numerator;
  if (suffix !== undefined && suffix in BINARY) {
    numerator *= BINARY[suffix] as bigint;
  } else {
    const power = exponent !== undefined ? Number(exponent) : (DECIMAL[suffix ?? ''] ?? 0);
    if (Math.abs(power) > 64) return undefined;
    if (power >= 0) numerator *= 10n ** BigInt(power);
    else denominator *= 10n ** BigInt(-power);
  }
  return reduce({ numerator, denominator });
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

function reduce(q: Quantity): Quantity {
  const divisor = gcd(q.numerator, q.denominator);
  return { numerator: q.numerator / divisor, denominator: q.denominator / divisor };
}

/** Kubernetes' Quantity.Value(): the integer value rounded up (2200m CPU -> 3). */
export function ceilValue(q: Quantity): bigint {
  const quotient = q.numerator / q.denominator;
  return q.numerator % q.denominator > 0n ? quotient + 1n : quotient;
}

export function isInteger(q: Quantity): boolean {
  return q.denominator === 1n;
}

/** Bytes for a memory quantity; a fractional byte count rounds down, as KubeVirt's Value()-1 does. */
export function toBytes(q: Quantity): bigint {
  return isInteger(q) ? q.numerator : ceilValue(q) - 1n;
}
