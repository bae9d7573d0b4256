// KubeVirt's Go types as shapes the encoder and decoders walk: the extracted table (kubevirt-structs.json, with
// its provenance) plus the few hand-written external types. A Go type expression (`*Memory`, `[]Disk`,
// `map[string]string`, `uint32`) resolves to one Shape.
import table from './kubevirt-structs.json' with { type: 'json' };
import { EXTERNAL_TYPES, OVERRIDES } from './externals.js';
import type { ExternalType, SpecialKind } from './externals.js';
import type { GoField, GoType } from './extract.js';

export type Scope = 'api' | 'stats';

export type Shape =
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'int'; unsigned: boolean }
  | { kind: 'float' }
  | { kind: 'pointer'; elem: Shape }
  | { kind: 'slice'; elem: Shape }
  | { kind: 'map'; elem: Shape }
  | { kind: 'struct'; name: string; fields: GoField[]; scope: Scope }
  | { kind: 'special'; special: SpecialKind };

export class UnknownGoTypeError extends Error {
  constructor(readonly goType: string) {
    super(`Go type ${JSON.stringify(goType)} is not in the KubeVirt field table`);
    this.name = 'UnknownGoTypeError';
  }
}

export const PROVENANCE = table.provenance;
const SCOPES: Record<Scope, Record<string, GoType>> = {
  api: table.api as Record<string, GoType>,
  stats: table.stats as Record<string, GoType>,
};

const INTS = new Set(['int', 'int8', 'int16', 'int32', 'int64']);
const UINTS = new Set(['uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr']);

const cache = new Map<string, Shape>();

function named(type: string, scope: Scope): ExternalType | undefined {
  return OVERRIDES[type] ?? SCOPES[scope][type] ?? EXTERNAL_TYPES[type];
}

/** The shape of a Go type expression as written in a field of `scope`'s file. */
export function shapeOf(type: string, scope: Scope = 'api'): Shape {
  const key = `${scope}:${type}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const shape = resolve(type, scope);
  cache.set(key, shape);
  return shape;
}

function resolve(type: string, scope: Scope): Shape {
  if (type.startsWith('*')) return { kind: 'pointer', elem: shapeOf(type.slice(1), scope) };
  if (type.startsWith('[]')) return { kind: 'slice', elem: shapeOf(type.slice(2), scope) };
  const map = /^map\[string\](.+)$/.exec(type);
  if (map) return { kind: 'map', elem: shapeOf(map[1] as string, scope) };
  if (type === 'string') return { kind: 'string' };
  if (type === 'bool') return { kind: 'bool' };
  if (INTS.has(type)) return { kind: 'int', unsigned: false };
  if (UINTS.has(type)) return { kind: 'int', unsigned: true };
  if (type === 'float32' || type === 'float64') return { kind: 'float' };
  const def = named(type, scope);
  if (!def) throw new UnknownGoTypeError(type);
  if (def.kind === 'named') return shapeOf(def.underlying, scope);
  if (def.kind === 'special') return def;
  // External structs (metav1.*, xml.Name) name their fields' types in their own terms, resolved like api's.
  return { kind: 'struct', name: type, fields: def.fields, scope };
}

export interface JsonTag {
  name: string;
  omitEmpty: boolean;
  skip: boolean;
}

/** encoding/json's view of a field: its key, omitempty, `-`. */
export function jsonTag(field: GoField): JsonTag {
  if (field.json === '-') return { name: '', omitEmpty: false, skip: true };
  const [name = '', ...opts] = (field.json ?? '').split(',');
  return { name: name || field.name, omitEmpty: opts.includes('omitempty'), skip: false };
}

export interface XmlTag {
  /** Element path (`system>entry` is ['system', 'entry']) or the attribute name. */
  path: string[];
  namespace: string | undefined;
  attr: boolean;
  chardata: boolean;
  skip: boolean;
}

/** encoding/xml's view of a field; a field without a tag is the element named like the field. */
export function xmlTag(field: GoField): XmlTag {
  if (field.xml === '-') return { path: [], namespace: undefined, attr: false, chardata: false, skip: true };
  const [rawName = '', ...opts] = (field.xml ?? '').split(',');
  const spaced = rawName.split(' ');
  const namespace = spaced.length === 2 ? spaced[0] : undefined;
  const name = (spaced.length === 2 ? spaced[1] : rawName) || field.name;
  return {
    path: name.split('>'),
    namespace,
    attr: opts.includes('attr'),
    chardata: opts.includes('chardata'),
    skip: opts.includes('innerxml') || opts.includes('comment') || opts.includes('any'),
  };
}
