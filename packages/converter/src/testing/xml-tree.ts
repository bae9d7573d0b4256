// Test helper: a small XML reader for the documents this package writes and the golden vectors hold
// (elements, attributes, text, the five entities and numeric references; no DTDs), plus the
// normalisation the golden comparison uses.

export interface Node {
  name: string;
  attrs: Record<string, string>;
  children: Node[];
  text: string;
}

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e] as string;
  });
}

export class XmlSyntaxError extends Error {}

/** Parses a document; throws XmlSyntaxError on anything not well-formed. */
export function parseXml(source: string): Node {
  let pos = 0;
  const fail = (why: string): never => {
    throw new XmlSyntaxError(`${why} at ${pos}`);
  };
  const skipProlog = () => {
    for (;;) {
      while (/\s/.test(source[pos] ?? '')) pos++;
      if (source.startsWith('<?', pos)) pos = source.indexOf('?>', pos) + 2;
      else if (source.startsWith('<!--', pos)) pos = source.indexOf('-->', pos) + 3;
      else return;
    }
  };
  const name = (): string => {
    const m = /^[A-Za-z_][\w.:-]*/.exec(source.slice(pos, pos + 200));
    if (!m) return fail('expected a name');
    pos += m[0].length;
    return m[0];
  };
  const element = (): Node => {
    if (source[pos] !== '<') fail('expected <');
    pos++;
    const node: Node = { name: name(), attrs: {}, children: [], text: '' };
    for (;;) {
      while (/\s/.test(source[pos] ?? '')) pos++;
      if (source.startsWith('/>', pos)) {
        pos += 2;
        return node;
      }
      if (source[pos] === '>') {
        pos++;
        break;
      }
      const key = name();
      if (key in node.attrs) fail(`duplicate attribute ${key}`);
      if (source[pos] !== '=') fail('expected =');
      const quote = source[pos + 1];
      if (quote !== '"' && quote !== "'") fail('expected a quote');
      const end = source.indexOf(quote as string, pos + 2);
      if (end < 0) fail('unterminated attribute');
      const raw = source.slice(pos + 2, end);
      if (raw.includes('<')) fail('< in attribute value');
      node.attrs[key] = decode(raw);
      pos = end + 1;
    }
    for (;;) {
      const next = source.indexOf('<', pos);
      if (next < 0) fail(`unclosed <${node.name}>`);
      const text = source.slice(pos, next);
      if (/&(?!(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);)/.test(text)) fail('bare &');
      node.text += decode(text);
      pos = next;
      if (source.startsWith('</', pos)) {
        pos += 2;
        if (name() !== node.name) fail(`mismatched </...> for <${node.name}>`);
        while (/\s/.test(source[pos] ?? '')) pos++;
        if (source[pos] !== '>') fail('expected >');
        pos++;
        if (node.children.length > 0) node.text = node.text.trim();
        return node;
      }
      if (source.startsWith('<!--', pos)) {
        pos = source.indexOf('-->', pos) + 3;
        continue;
      }
      node.children.push(element());
    }
  };
  skipProlog();
  const root = element();
  skipProlog();
  if (pos < source.length) fail('content after the root element');
  return root;
}

/**
 * The comparison form: empty elements dropped bottom-up (no children, no text, and no attributes
 * other than xmlns; a sysinfo <entry> with no value counts as empty), whitespace-only text dropped.
 */
export function normalize(node: Node): Node | undefined {
  const children = node.children.map(normalize).filter((c): c is Node => c !== undefined);
  const text = children.length > 0 ? '' : node.text.trim();
  const attrs = Object.fromEntries(Object.entries(node.attrs).filter(([k]) => k !== 'xmlns'));
  const empty = children.length === 0 && text === '' && (Object.keys(attrs).length === 0 || node.name === 'entry');
  return empty ? undefined : { name: node.name, attrs, children, text };
}
