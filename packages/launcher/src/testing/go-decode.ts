// A strict stand-in for Go's json.Unmarshal into KubeVirt's structs, for tests: every key must be a field of the
// struct (compared case-sensitively, stricter than Go, which would silently drop an unknown or mis-cased key) and
// every value must have the JSON type Go accepts for that field. A payload that passes decodes in virt-handler
// with no field lost.
import { jsonTag, shapeOf } from '../domain/go-fields/table.js';
import type { Scope, Shape } from '../domain/go-fields/table.js';

export class GoDecodeError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'GoDecodeError';
  }
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** The JSON keys a struct accepts, embedded structs inlined, with the shape of each. */
function structKeys(shape: Extract<Shape, { kind: 'struct' }>, into = new Map<string, Shape>()): Map<string, Shape> {
  for (const field of shape.fields) {
    const tag = jsonTag(field);
    if (tag.skip) continue;
    const fieldShape = shapeOf(field.type, shape.scope);
    if (field.embedded && field.json === undefined && fieldShape.kind === 'struct') structKeys(fieldShape, into);
    else into.set(tag.name, fieldShape);
  }
  return into;
}

function check(shape: Shape, v: unknown, path: string): void {
  const kind = kindOf(v);
  const fail = (expected: string): never => {
    throw new GoDecodeError(path, `Go wants ${expected}, the JSON has ${kind} ${JSON.stringify(v)}`);
  };
  switch (shape.kind) {
    case 'string':
      if (kind !== 'string' && kind !== 'null') fail('a string');
      return;
    case 'bool':
      if (kind !== 'boolean' && kind !== 'null') fail('a bool');
      return;
    case 'int':
      if (kind === 'null') return;
      if (kind !== 'number' || !Number.isInteger(v) || (shape.unsigned && (v as number) < 0)) {
        fail(shape.unsigned ? 'an unsigned integer' : 'an integer');
      }
      return;
    case 'float':
      if (kind !== 'number' && kind !== 'null') fail('a number');
      return;
    case 'pointer':
      if (kind !== 'null') check(shape.elem, v, path);
      return;
    case 'slice':
      if (kind === 'null') return;
      if (kind !== 'array') fail('an array');
      (v as unknown[]).forEach((item, i) => check(shape.elem, item, `${path}[${i}]`));
      return;
    case 'map':
      if (kind === 'null') return;
      if (kind !== 'object') fail('an object');
      for (const [k, item] of Object.entries(v as object)) check(shape.elem, item, `${path}.${k}`);
      return;
    case 'struct': {
      if (kind === 'null') return; // null into a struct is a no-op in Go
      if (kind !== 'object') fail(`an object (${shape.name})`);
      const keys = structKeys(shape);
      for (const [k, item] of Object.entries(v as object)) {
        const fieldShape = keys.get(k);
        if (!fieldShape) throw new GoDecodeError(`${path}.${k}`, `no field of ${shape.name} has the JSON key "${k}"`);
        check(fieldShape, item, `${path}.${k}`);
      }
      return;
    }
    case 'special':
      if (shape.special === 'opaque') return;
      if (shape.special === 'time') {
        if (kind === 'null') return;
        if (kind !== 'string' || Number.isNaN(Date.parse(v as string))) fail('an RFC 3339 time');
        return;
      }
      check(
        {
          kind: 'struct',
          name: 'Alias',
          scope: 'api',
          fields: [
            { name: 'Name', type: 'string' },
            { name: 'UserDefined', type: 'bool' },
          ],
        },
        v,
        path,
      );
  }
}

/**
 * Checks `json` (text or parsed) against the Go type `type` (`Domain`, `DomainStats`) as json.Unmarshal would
 * read it; throws GoDecodeError naming the first bad key or value. Returns the parsed value.
 */
export function goDecode(type: string, json: string | unknown, scope: Scope = 'api'): unknown {
  const value: unknown = typeof json === 'string' ? JSON.parse(json) : json;
  check(shapeOf(type, scope), value, type);
  return value;
}
