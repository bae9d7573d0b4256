// encoding/json's rules applied to a Go value described by the field table. A Go value here is plain data with
// Go field names where only the set fields need be present: a missing field is Go's zero value (0, "", false,
// nil pointer/slice/map → null, a struct → its zero fields), so the output has every key Go would write.
import { jsonTag, shapeOf } from './table.js';
import type { Scope, Shape } from './table.js';

export type GoValue = unknown;

export class GoValueError extends Error {
  constructor(
    readonly path: string,
    readonly value: unknown,
    expected: string,
  ) {
    super(`${path}: ${JSON.stringify(value)} is not a Go ${expected}`);
    this.name = 'GoValueError';
  }
}

/** metav1.Time's JSON: RFC 3339, UTC, whole seconds. */
export function goTime(value: string, path: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new GoValueError(path, value, 'time (RFC 3339)');
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const isNil = (v: unknown): boolean => v === undefined || v === null;

/** omitempty: false, 0, "", a nil pointer, and a nil or empty slice or map. Structs are never empty. */
function isEmpty(shape: Shape, v: unknown): boolean {
  switch (shape.kind) {
    case 'string':
      return isNil(v) || v === '';
    case 'bool':
      return isNil(v) || v === false;
    case 'int':
    case 'float':
      return isNil(v) || v === 0;
    case 'pointer':
      return isNil(v);
    case 'slice':
      return isNil(v) || (v as unknown[]).length === 0;
    case 'map':
      return isNil(v) || Object.keys(v as object).length === 0;
    default:
      return false;
  }
}

function encodeStruct(
  shape: Extract<Shape, { kind: 'struct' }>,
  v: unknown,
  path: string,
  out: Record<string, unknown>,
): void {
  if (!isNil(v) && (typeof v !== 'object' || Array.isArray(v))) throw new GoValueError(path, v, `struct ${shape.name}`);
  const value = (v ?? {}) as Record<string, unknown>;
  for (const field of shape.fields) {
    const tag = jsonTag(field);
    if (tag.skip) continue;
    const fieldShape = shapeOf(field.type, shape.scope);
    const fieldValue = value[field.name];
    if (field.embedded && field.json === undefined && fieldShape.kind === 'struct') {
      encodeStruct(fieldShape, fieldValue, path, out); // an embedded struct's fields are inlined
      continue;
    }
    if (tag.omitEmpty && isEmpty(fieldShape, fieldValue)) continue;
    out[tag.name] = encodeShape(fieldShape, fieldValue, `${path}.${field.name}`);
  }
}

function encodeShape(shape: Shape, v: unknown, path: string): unknown {
  switch (shape.kind) {
    case 'string':
      if (isNil(v)) return '';
      if (typeof v !== 'string') throw new GoValueError(path, v, 'string');
      return v;
    case 'bool':
      if (isNil(v)) return false;
      if (typeof v !== 'boolean') throw new GoValueError(path, v, 'bool');
      return v;
    case 'int':
    case 'float': {
      if (isNil(v)) return 0;
      const n = typeof v === 'bigint' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) throw new GoValueError(path, v, shape.kind);
      if (shape.kind === 'int' && (!Number.isInteger(n) || (shape.unsigned && n < 0))) {
        throw new GoValueError(path, v, shape.unsigned ? 'unsigned integer' : 'integer');
      }
      return n;
    }
    case 'pointer':
      return isNil(v) ? null : encodeShape(shape.elem, v, path);
    case 'slice':
      if (isNil(v)) return null;
      if (!Array.isArray(v)) throw new GoValueError(path, v, 'slice');
      return v.map((item, i) => encodeShape(shape.elem, item, `${path}[${i}]`));
    case 'map':
      if (isNil(v)) return null;
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([k, item]) => [
          k,
          encodeShape(shape.elem, item, `${path}.${k}`),
        ]),
      );
    case 'struct': {
      const out: Record<string, unknown> = {};
      encodeStruct(shape, v, path, out);
      return out;
    }
    case 'special':
      return encodeSpecial(shape.special, v, path);
  }
}

function encodeSpecial(kind: 'time' | 'alias' | 'opaque', v: unknown, path: string): unknown {
  if (kind === 'opaque') return v ?? null;
  if (kind === 'time') {
    if (isNil(v) || v === '') return null;
    if (typeof v !== 'string') throw new GoValueError(path, v, 'time');
    return goTime(v, path);
  }
  const alias = (v ?? {}) as { Name?: unknown; UserDefined?: unknown };
  return {
    Name: encodeShape({ kind: 'string' }, alias.Name, `${path}.Name`),
    UserDefined: encodeShape({ kind: 'bool' }, alias.UserDefined, `${path}.UserDefined`),
  };
}

/** The JSON encoding/json writes for `value` as the Go type `type` of `scope`'s file. */
export function encodeGoJson(type: string, value: GoValue, scope: Scope = 'api'): unknown {
  return encodeShape(shapeOf(type, scope), value, type);
}
