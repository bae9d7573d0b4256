// The text of one log line. The reference is one JSON.stringify of a merged object (the fixed keys, then the
// logger's fields, then the call's); the fast path writes the same bytes from pieces: the line's opening (component
// and level) made once per logger and level, the fields of `with()` stringified once when they cannot change, and
// only the call's own fields stringified per line. It applies only where it provably gives the reference's bytes,
// and falls back to the reference everywhere else (a field named like a fixed key, an index-like key, a class
// instance as fields): see keysFollow.
import type { LogFields, LogLevel } from './log.js';

// Values JSON cannot carry as they are: a bigint as its digits, an Error as its message.
export function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return value.message;
  return value;
}

/** The line as the logger has always made it: the definition the fast path must match byte for byte. */
export function referenceLine(
  component: string,
  level: LogLevel,
  msg: string,
  pos: string,
  timestamp: string,
  base: LogFields,
  fields: LogFields | undefined,
): string {
  const line = { component, level, msg, pos, timestamp };
  return JSON.stringify({ ...line, ...base, ...fields }, replacer);
}

const FIXED_KEYS = new Set(['component', 'level', 'msg', 'pos', 'timestamp']);

/**
 * Whether the fields' keys land after the fixed keys, in their own order, in the reference's merged object: a key
 * named like a fixed key would take that key's place, an index-like key ("0") goes before every other key, and a
 * `toJSON` replaces the whole object. A plain object only: an Error, an array or a class instance may stringify
 * otherwise than its spread copy. Conservative: any key starting with a digit counts as index-like.
 */
function keysFollow(fields: object): boolean {
  const proto: unknown = Object.getPrototypeOf(fields);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in fields) {
    const first = key.charCodeAt(0);
    if (FIXED_KEYS.has(key) || key === 'toJSON' || (first >= 48 && first <= 57)) return false;
  }
  return true;
}

/** `{"a":1}` → `"a":1`; `{}` → ``. */
const members = (json: string): string => json.slice(1, -1);

const isPrimitive = (value: unknown): boolean =>
  value === null || (typeof value !== 'object' && typeof value !== 'function');

export type LineMaker = (level: LogLevel, msg: string, pos: string, timestamp: string, fields?: LogFields) => string;

/** A function making a logger's lines, the same bytes as referenceLine with the same arguments. */
export function lineMaker(component: string, base: LogFields): LineMaker {
  const reference: LineMaker = (level, msg, pos, timestamp, fields) =>
    referenceLine(component, level, msg, pos, timestamp, base, fields);
  if (typeof component !== 'string' || !keysFollow(base)) return reference;
  const openings = new Map<LogLevel, string>();
  const opening = (level: LogLevel): string => {
    let text = openings.get(level);
    if (text === undefined) {
      text = `{"component":${JSON.stringify(component)},"level":${JSON.stringify(level)},"msg":`;
      openings.set(level, text);
    }
    return text;
  };
  const baseKeys = Object.keys(base);
  // Fields of primitives cannot change after with(): their text is made once. Others may be mutated by the caller
  // between lines, so they are stringified per line, as the reference does.
  const fixedBase = Object.values(base).every(isPrimitive) ? members(JSON.stringify(base, replacer)) : undefined;
  return (level, msg, pos, timestamp, fields) => {
    if (typeof msg !== 'string' || typeof level !== 'string' || (fields !== undefined && !keysFollow(fields))) {
      return reference(level, msg, pos, timestamp, fields);
    }
    if (fields !== undefined && baseKeys.length > 0) {
      // A call's field that the logger has too stands at the logger's field's place in the reference.
      for (const key in fields) if (Object.hasOwn(base, key)) return reference(level, msg, pos, timestamp, fields);
    }
    const own = fields === undefined ? '' : members(JSON.stringify(fields, replacer));
    const inherited = fixedBase ?? members(JSON.stringify(base, replacer));
    const rest = inherited === '' ? own : own === '' ? inherited : `${inherited},${own}`;
    return `${opening(level)}${JSON.stringify(msg)},"pos":${JSON.stringify(pos)},"timestamp":${JSON.stringify(timestamp)}${rest === '' ? '' : ','}${rest}}`;
  };
}
