// Decoding a parsed JSON value into the shape of a Go struct, with encoding/json's rules: field names match
// exactly or else case-insensitively, unknown members are skipped, the last of two equal keys wins (a struct
// member merges into the one before), null empties a slice, pointer or interface and leaves anything else as it
// was, integers are plain digits within their type's range. The result is a tree of plain values; a value Go
// would refuse throws a GoDecodeError naming the field by its Go path (`Routes[2].Gw`).
import { decodeGoBase64, parseGoIp } from './go-net.js';
import type { GoJsonValue } from './go-json.js';

export type GoType =
  | { t: 'string' }
  | { t: 'bool' }
  | { t: 'int'; min: bigint; max: bigint }
  | { t: 'ip' }
  | { t: 'bytes' }
  /** A field of a Go interface type with no concrete type to decode into: only null fits. */
  | { t: 'iface' }
  | { t: 'ptr'; of: GoType }
  | { t: 'slice'; of: GoType; maxItems: number }
  | { t: 'struct'; fields: ReadonlyArray<readonly [string, GoType]> };

/** What a Go value decodes to: string, boolean, bigint, Uint8Array, null (nil), array or a struct's fields. */
export type GoDecoded = string | boolean | bigint | Uint8Array | null | GoDecoded[] | GoStruct;
export type GoStruct = Map<string, GoDecoded>;

export class GoDecodeError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field || 'the top-level value'}: ${reason}`);
    this.name = 'GoDecodeError';
  }
}

export const GO_STRING: GoType = { t: 'string' };
export const GO_BOOL: GoType = { t: 'bool' };
export const GO_IP: GoType = { t: 'ip' };
export const GO_BYTES: GoType = { t: 'bytes' };
export const GO_IFACE: GoType = { t: 'iface' };
export const goInt = (bits: 8 | 16 | 64, signed: boolean): GoType => ({
  t: 'int',
  min: signed ? -(1n << BigInt(bits - 1)) : 0n,
  max: signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n,
});

/** Go's case folding of a name, enough for ASCII field names (K and ſ fold to k and s as in Go). */
function fold(name: string): string {
  return [...name]
    .map((c) => {
      const f = c.toLowerCase().toUpperCase();
      return f.length === 1 ? f : c;
    })
    .join('');
}

function fieldFor(fields: ReadonlyArray<readonly [string, GoType]>, key: string) {
  const exact = fields.find(([name]) => name === key);
  if (exact) return exact;
  const folded = fold(key);
  return fields.find(([name]) => fold(name) === folded);
}

function describe(v: GoJsonValue): string {
  return v.kind === 'bool' ? 'bool' : v.kind;
}

function wrongType(field: string, v: GoJsonValue, goType: string): never {
  throw new GoDecodeError(field, `cannot take ${describe(v)} into Go type ${goType}`);
}

function decodeInt(field: string, type: { min: bigint; max: bigint }, v: GoJsonValue): bigint {
  const goType = type.min === 0n ? `uint${type.max.toString(2).length}` : 'int';
  if (v.kind !== 'number') wrongType(field, v, goType);
  // Go reads an integer field's number with ParseInt/ParseUint: no fraction, no exponent, "-0" only if signed.
  if (!/^-?\d+$/.test(v.text) || (type.min === 0n && v.text.startsWith('-'))) {
    throw new GoDecodeError(field, `number ${v.text} does not fit Go type ${goType}`);
  }
  const n = BigInt(v.text);
  if (n < type.min || n > type.max) throw new GoDecodeError(field, `number ${v.text} does not fit Go type ${goType}`);
  return n;
}

function decodeStruct(
  field: string,
  fields: ReadonlyArray<readonly [string, GoType]>,
  v: GoJsonValue,
  prior: GoDecoded | undefined,
): GoStruct {
  if (v.kind !== 'object') wrongType(field, v, 'struct');
  const out: GoStruct = prior instanceof Map ? prior : new Map();
  for (const [key, member] of v.members) {
    const match = fieldFor(fields, key);
    if (!match) continue;
    const [name, type] = match;
    const decoded = decodeGo(field ? `${field}.${name}` : name, type, member, out.get(name));
    if (decoded !== undefined) out.set(name, decoded);
  }
  return out;
}

function decodeSlice(field: string, type: { of: GoType; maxItems: number }, v: GoJsonValue, prior?: GoDecoded) {
  if (v.kind !== 'array') wrongType(field, v, 'slice');
  if (v.items.length > type.maxItems) {
    throw new GoDecodeError(field, `${v.items.length} elements, more than the ${type.maxItems} accepted`);
  }
  const before = Array.isArray(prior) ? prior : [];
  return v.items.map((item, i) => decodeGo(`${field}[${i}]`, type.of, item, before[i]) ?? zeroOf(type.of));
}

/** The zero value of a type, for a slice element given as null. */
function zeroOf(type: GoType): GoDecoded {
  if (type.t === 'string') return '';
  if (type.t === 'bool') return false;
  if (type.t === 'int') return 0n;
  if (type.t === 'struct') return new Map();
  return null;
}

function decodeText(field: string, type: GoType, v: GoJsonValue): GoDecoded {
  if (v.kind !== 'string') wrongType(field, v, type.t === 'ip' ? 'net.IP' : '[]byte');
  if (type.t === 'ip') {
    if (v.value === '') return null;
    const ip = parseGoIp(v.value);
    if (!ip) throw new GoDecodeError(field, `invalid IP address: ${JSON.stringify(v.value)}`);
    return ip;
  }
  const bytes = decodeGoBase64(v.value);
  if (!bytes) throw new GoDecodeError(field, `not standard base64: ${JSON.stringify(v.value)}`);
  return bytes;
}

/** undefined: the member changes nothing (null on a field that is not nil-able). */
export function decodeGo(field: string, type: GoType, v: GoJsonValue, prior?: GoDecoded): GoDecoded | undefined {
  const nilable = type.t === 'ip' || type.t === 'bytes' || type.t === 'iface' || type.t === 'ptr' || type.t === 'slice';
  if (v.kind === 'null') return nilable ? null : undefined;
  switch (type.t) {
    case 'string':
      return v.kind === 'string' ? v.value : wrongType(field, v, 'string');
    case 'bool':
      return v.kind === 'bool' ? v.value : wrongType(field, v, 'bool');
    case 'int':
      return decodeInt(field, type, v);
    case 'ip':
    case 'bytes':
      return decodeText(field, type, v);
    case 'iface':
      throw new GoDecodeError(field, `cannot take ${describe(v)} into a Go interface (only null)`);
    case 'ptr':
      return decodeGo(field, type.of, v, prior ?? undefined) ?? zeroOf(type.of);
    case 'slice':
      return decodeSlice(field, type, v, prior);
    case 'struct':
      return decodeStruct(field, type.fields, v, prior);
  }
}
