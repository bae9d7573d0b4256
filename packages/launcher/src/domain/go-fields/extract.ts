// Reads Go source text and lists its type declarations as facts: struct names, field names, Go types and the
// `json:"…"` / `xml:"…"` tags. It is how kubevirt-structs.json is made (see README.md beside this file), so the
// table can be regenerated from a newer KubeVirt instead of being edited by hand. A line-based reader is enough:
// gofmt'ed Go has one field per line and `type X struct {` … `}` blocks.

export interface GoField {
  /** The Go field name; for an embedded field, the type's own name (TypeMeta for metav1.TypeMeta). */
  name: string;
  /** The Go type as written: `string`, `*Memory`, `[]Interface`, `[][]bool`, `metav1.Time`. */
  type: string;
  json?: string;
  xml?: string;
  /** An embedded (anonymous) field: encoding/json inlines its fields unless it has a json name. */
  embedded?: true;
}

export type GoType = { kind: 'struct'; fields: GoField[] } | { kind: 'named'; underlying: string };

export class GoSourceError extends Error {
  constructor(
    readonly line: number,
    readonly text: string,
  ) {
    super(`cannot read a struct field at line ${line}: ${JSON.stringify(text)}`);
    this.name = 'GoSourceError';
  }
}

function tagValue(tags: string | undefined, key: string): string | undefined {
  if (!tags) return undefined;
  const m = new RegExp(`(?:^|\\s)${key}:"([^"]*)"`).exec(tags);
  return m?.[1];
}

function stripComment(line: string): string {
  // Struct tags never contain `//` in these sources; a URL inside a tag uses no `//` either (http://kubevirt.io
  // does, so cut only at a `//` that is outside backquotes).
  let inTag = false;
  for (let i = 0; i < line.length - 1; i++) {
    if (line[i] === '`') inTag = !inTag;
    else if (!inTag && line[i] === '/' && line[i + 1] === '/') return line.slice(0, i);
  }
  return line;
}

/** Exported fields only: encoding/json and encoding/xml ignore the others. */
function field(text: string, lineNo: number): GoField | undefined {
  const tagStart = text.indexOf('`');
  const tags = tagStart >= 0 ? text.slice(tagStart + 1, text.lastIndexOf('`')) : undefined;
  const decl = (tagStart >= 0 ? text.slice(0, tagStart) : text).trim();
  const parts = decl.split(/\s+/);
  let out: GoField;
  if (parts.length === 1) {
    const type = parts[0] as string;
    out = { name: type.replace(/^\*/, '').replace(/^\w+\./, ''), type, embedded: true };
  } else if (parts.length === 2) {
    out = { name: parts[0] as string, type: parts[1] as string };
  } else throw new GoSourceError(lineNo, text);
  if (!/^[A-Z]/.test(out.name)) return undefined;
  const json = tagValue(tags, 'json');
  const xml = tagValue(tags, 'xml');
  if (json !== undefined) out.json = json;
  if (xml !== undefined) out.xml = xml;
  return out;
}

export function extractGoTypes(source: string): Record<string, GoType> {
  const types: Record<string, GoType> = {};
  const lines = source.split('\n');
  let current: { name: string; fields: GoField[] } | undefined;
  lines.forEach((raw, i) => {
    const line = stripComment(raw).trim();
    if (current) {
      if (line === '}') {
        types[current.name] = { kind: 'struct', fields: current.fields };
        current = undefined;
      } else if (line !== '') {
        const f = field(line, i + 1);
        if (f) current.fields.push(f);
      }
      return;
    }
    const struct = /^type (\w+) struct ?\{(\})?$/.exec(line);
    if (struct) {
      if (struct[2]) types[struct[1] as string] = { kind: 'struct', fields: [] };
      else current = { name: struct[1] as string, fields: [] };
      return;
    }
    const named = /^type (\w+) ([\w.[\]*]+)$/.exec(line);
    if (named) types[named[1] as string] = { kind: 'named', underlying: named[2] as string };
  });
  return types;
}
