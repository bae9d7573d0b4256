// JSON as Go's encoding/json reads and writes it, for files KubeVirt's Go code shares with us. JSON.parse is not
// enough to read them faithfully: it turns `1e3` and `1400.0` into numbers Go refuses for an integer field, keeps
// only the last of two keys, and keeps lone surrogates that Go replaces. The writer escapes as Go's Marshal does
// (HTML characters and U+2028/U+2029 as \u escapes), so what we write is byte-identical to what Go writes.

/** A JSON value with numbers kept as their text and object members in order, duplicates included. */
export type GoJsonValue =
  | { kind: 'null' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'number'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'array'; items: GoJsonValue[] }
  | { kind: 'object'; members: Array<[string, GoJsonValue]> };

/** Not JSON: `offset` is where the parse stopped (a UTF-16 index into the text). */
export class GoJsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`${reason} at offset ${offset}`);
    this.name = 'GoJsonSyntaxError';
  }
}

const MAX_DEPTH = 64;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(reason: string): never {
    throw new GoJsonSyntaxError(this.pos, this.pos >= this.text.length ? 'unexpected end of JSON input' : reason);
  }

  /** Go's whitespace is exactly these four; a byte-order mark is not JSON. */
  skipSpace(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.text[this.pos]!)) this.pos += 1;
  }

  expect(literal: string): void {
    if (!this.text.startsWith(literal, this.pos)) this.fail(`invalid literal, expected ${literal}`);
    this.pos += literal.length;
  }

  value(depth: number): GoJsonValue {
    if (depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH}`);
    this.skipSpace();
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return { kind: 'string', value: this.string() };
    if (c === 't' || c === 'f') {
      this.expect(c === 't' ? 'true' : 'false');
      return { kind: 'bool', value: c === 't' };
    }
    if (c === 'n') {
      this.expect('null');
      return { kind: 'null' };
    }
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.text);
    if (!m) this.fail(`invalid character ${JSON.stringify(c)} looking for beginning of value`);
    this.pos += m[0].length;
    return { kind: 'number', text: m[0] };
  }

  object(depth: number): GoJsonValue {
    const members: Array<[string, GoJsonValue]> = [];
    this.pos += 1;
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos += 1;
      return { kind: 'object', members };
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail('expected a string key');
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ':') this.fail('expected ":" after an object key');
      this.pos += 1;
      members.push([key, this.value(depth + 1)]);
      this.skipSpace();
      const sep = this.text[this.pos];
      if (sep !== '}' && sep !== ',') this.fail('expected "," or "}" after an object member');
      this.pos += 1;
      if (sep === '}') return { kind: 'object', members };
    }
  }

  array(depth: number): GoJsonValue {
    const items: GoJsonValue[] = [];
    this.pos += 1;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos += 1;
      return { kind: 'array', items };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      this.skipSpace();
      const sep = this.text[this.pos];
      if (sep !== ']' && sep !== ',') this.fail('expected "," or "]" after an array element');
      this.pos += 1;
      if (sep === ']') return { kind: 'array', items };
    }
  }

  hex4(): number {
    const h = this.text.slice(this.pos, this.pos + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('invalid \\u escape');
    this.pos += 4;
    return parseInt(h, 16);
  }

  /** A string; a \u escape of a lone surrogate becomes U+FFFD, as Go decodes it. */
  string(): string {
    this.pos += 1;
    let out = '';
    for (;;) {
      const c = this.text[this.pos];
      if (c === undefined) this.fail('unexpected end of JSON input');
      if (c < ' ') this.fail('invalid control character in string');
      this.pos += 1;
      if (c === '"') return out;
      if (c !== '\\') {
        const code = c.charCodeAt(0);
        const isPair = code >= 0xd800 && code < 0xdc00 && /[\udc00-\udfff]/.test(this.text[this.pos] ?? '');
        if (isPair) out += c + this.text[this.pos++];
        else out += code >= 0xd800 && code < 0xe000 ? '\ufffd' : c;
        continue;
      }
      const e = this.text[this.pos] ?? '';
      if (e !== 'u' && !Object.hasOwn(SHORT_ESCAPES, e)) this.fail('invalid escape in string');
      this.pos += 1;
      out += e === 'u' ? this.unicodeEscape() : SHORT_ESCAPES[e];
    }
  }

  unicodeEscape(): string {
    const first = this.hex4();
    if (first < 0xd800 || first >= 0xe000) return String.fromCharCode(first);
    if (first < 0xdc00 && this.text.startsWith('\\u', this.pos)) {
      const save = this.pos;
      this.pos += 2;
      const second = this.hex4();
      if (second >= 0xdc00 && second < 0xe000) return String.fromCharCode(first, second);
      this.pos = save;
    }
    return '\ufffd';
  }
}

/** Parses one JSON value, as Go's Unmarshal does: nothing but whitespace may follow it. */
export function parseGoJson(text: string): GoJsonValue {
  const reader = new Reader(text);
  const value = reader.value(0);
  reader.skipSpace();
  if (reader.pos < text.length)
    reader.fail(`invalid character ${JSON.stringify(text[reader.pos])} after top-level value`);
  return value;
}

/** A string literal as Go's Marshal writes it (HTML-safe, U+2028/U+2029 escaped, a lone surrogate as U+FFFD). */
export function goJsonString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i += 1) {
    const c = value[i]!;
    const code = c.charCodeAt(0);
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (c === '\b') out += '\\b';
    else if (c === '\f') out += '\\f';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code < 0x20 || c === '<' || c === '>' || c === '&' || code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else if (code >= 0xd800 && code < 0xdc00 && /[\udc00-\udfff]/.test(value[i + 1] ?? '')) {
      out += c + value[i + 1];
      i += 1;
    } else out += code >= 0xd800 && code < 0xe000 ? '\ufffd' : c;
  }
  return `${out}"`;
}

/** json.MarshalIndent(v, "", "  ") of a value already in JSON's shape (numbers as their text). */
export function goMarshalIndent(value: GoJsonValue, indent = ''): string {
  const inner = `${indent}  `;
  switch (value.kind) {
    case 'null':
      return 'null';
    case 'bool':
      return String(value.value);
    case 'number':
      return value.text;
    case 'string':
      return goJsonString(value.value);
    case 'array':
      if (value.items.length === 0) return '[]';
      return `[\n${value.items.map((v) => inner + goMarshalIndent(v, inner)).join(',\n')}\n${indent}]`;
    case 'object':
      if (value.members.length === 0) return '{}';
      return `{\n${value.members
        .map(([k, v]) => `${inner}${goJsonString(k)}: ${goMarshalIndent(v, inner)}`)
        .join(',\n')}\n${indent}}`;
  }
}
