// A small XML reader for libvirt's own domain XML (well-formed, no DTD): elements, attributes, text.
// Enough to turn the live XML into KubeVirt's Go-named JSON; not a general XML parser.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: XmlElement[];
  text: string;
}

export class XmlParseError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'XmlParseError';
  }
}

const entities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
    if (e.startsWith('#x') || e.startsWith('#X')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return entities[e] ?? m;
  });
}

export function parseXml(xml: string): XmlElement {
  const root: XmlElement = { name: '#root', attrs: {}, children: [], text: '' };
  const stack: XmlElement[] = [root];
  const tag =
    /<(\/?)([\w:.-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[([\s\S]*?)\]\]>/g;
  let last = 0;
  for (let m = tag.exec(xml); m; m = tag.exec(xml)) {
    const top = stack[stack.length - 1] as XmlElement;
    top.text += decode(xml.slice(last, m.index));
    last = tag.lastIndex;
    if (m[5] !== undefined) {
      top.text += m[5];
      continue;
    }
    if (!m[2]) continue; // comment or declaration
    if (m[1]) {
      if (top.name !== m[2]) throw new XmlParseError(`unexpected </${m[2]}>`, m.index);
      top.text = top.text.trim();
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of (m[3] ?? '').matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
      attrs[a[1] ?? ''] = decode(a[2] ?? a[3] ?? '');
    }
    const el: XmlElement = { name: m[2], attrs, children: [], text: '' };
    top.children.push(el);
    if (!m[4]) stack.push(el);
  }
  if (stack.length !== 1) throw new XmlParseError(`unclosed <${stack[stack.length - 1]?.name}>`, xml.length);
  const doc = root.children[0];
  if (!doc) throw new XmlParseError('no root element', 0);
  return doc;
}

export function child(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  return el?.children.filter((c) => c.name === name) ?? [];
}
