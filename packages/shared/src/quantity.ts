// Kubernetes resource quantities ("128Mi", "1.5Gi", "500M", "1e9", "2200m"), parsed as the API server's
// resource.ParseQuantity accepts them, and kept exact: a fraction of big integers, so no value loses a byte
// to floating point. Callers choose the rounding they need (ceilValue is Quantity.Value()).

export interface Quantity {
  readonly numerator: bigint;
  /** Always positive; the fraction is reduced. */
  readonly denominator: bigint;
}

const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
// Decimal SI suffixes as powers of ten ('' is a plain number).
const DECIMAL: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

// sign, digits with an optional fraction, then a binary or decimal suffix or a decimal exponent. No spaces:
// ParseQuantity refuses them (only JSON decoding trims, and the callers here get already-decoded strings).
const PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

// Beyond this an exponent can only be a mistake, and it keeps 10n ** exponent from exhausting memory.
const MAX_EXPONENT = 64;

// The same few strings are parsed by validation, defaults and several converters: memoise them.
const cache = new Map<string, Quantity | undefined>();
const CACHE_LIMIT = 1024;

/** Parses a quantity; undefined when `text` is not one (the caller names the field in its own error). */
export function parseQuantity(text: string): Quantity | undefined {
  if (cache.has(text)) return cache.get(text);
  const quantity = parseUncached(text);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, quantity);
  return quantity;
}

function parseUncached(text: string): Quantity | undefined {
  const match = PATTERN.exec(text);
  if (!match) return undefined;
  const [, sign, digits = '', suffix, exponent] = match;
  const [whole = '', fraction = ''] = digits.split('.');
  let numerator = BigInt((whole || '0') + fraction);
  let denominator = 10n ** BigInt(fraction.length);
  if (sign === '-') numerator = -numerator;
  const binary = suffix !== undefined ? BINARY[suffix] : undefined;
  if (binary !== undefined) {
    numerator *= binary;
  } else {
    const power = exponent !== undefined ? Number(exponent) : (DECIMAL[suffix ?? ''] ?? 0);
    if (Math.abs(power) > MAX_EXPONENT) return undefined;
    if (power >= 0) numerator *= 10n ** BigInt(power);
    else denominator *= 10n ** BigInt(-power);
  }
  const divisor = gcd(numerator, denominator);
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

export function isInteger(q: Quantity): boolean {
  return q.denominator === 1n;
}

export function isNegative(q: Quantity): boolean {
  return q.numerator < 0n;
}

/** Kubernetes' Quantity.Value(): the integer value rounded up, away from zero for fractions (2200m -> 3). */
export function ceilValue(q: Quantity): bigint {
  const quotient = q.numerator / q.denominator;
  return q.numerator % q.denominator > 0n ? quotient + 1n : quotient;
}

/** Bytes of a memory quantity: a fractional byte count rounds down, as KubeVirt's Value()-1 does. */
export function toBytes(q: Quantity): bigint {
  return isInteger(q) ? q.numerator : ceilValue(q) - 1n;
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}
