// A minimal XML tree and its serializer. Every attribute value and text node passes through escape(),
// so no VMI string can break the document's structure.

export interface XmlNode {
  name: string;
  attrs: [string, string | number | bigint | undefined][];
  children: XmlNode[];
  text?: string;
}

/** Builds an element; attributes whose value is undefined are left out. */
export function el(
  name: string,
  attrs: Record<string, string | number | bigint | undefined> = {},
  children: (XmlNode | undefined | false)[] = [],
  text?: string,
): XmlNode {
  return { name, attrs: Object.entries(attrs), children: children.filter((c): c is XmlNode => !!c), text };
}

// Characters XML 1.0 forbids outright (C0 controls except tab/LF/CR, lone surrogates, U+FFFE/U+FFFF).
// They cannot be escaped, only replaced: libvirt would reject the document otherwise.
const FORBIDDEN =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const SPECIAL = /[&<>"'\t\n\r]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/** The text XML can carry: characters XML 1.0 forbids become U+FFFD. */
export function xmlSafe(value: string): string {
  return value.replace(FORBIDDEN, '\uFFFD');
}

// One scan decides whether any work is needed: most values (paths, names, numbers) need none.
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[&<>"'\u0000-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

export function escape(value: string): string {
  if (!NEEDS_WORK.test(value)) return value;
  return xmlSafe(value).replace(SPECIAL, (c) => ENTITIES[c] as string);
}

function write(node: XmlNode, indent: string): string {
  let out = `${indent}<${node.name}`;
  for (const [key, value] of node.attrs) {
    if (value !== undefined) out += ` ${key}="${escape(typeof value === 'string' ? value : String(value))}"`;
  }
  if (node.children.length === 0) {
    return node.text === undefined || node.text === '' ? `${out}/>\n` : `${out}>${escape(node.text)}</${node.name}>\n`;
  }
  out += '>\n';
  const inner = `${indent}  `;
  for (const child of node.children) out += write(child, inner);
  return `${out}${indent}</${node.name}>\n`;
}

/** Serializes with 2-space indentation and a trailing newline. */
export function serialize(root: XmlNode): string {
  return write(root, '');
}
