// encoding/xml's Unmarshal rules, driven by the field table: the live domain XML becomes a Go value (set fields
// only; encode-json fills the zero values). Matching is by local element/attribute name, and by namespace only
// where a tag names one (`http://kubevirt.io kubevirt`); a tag with a prefix (`qemu:commandline`) matches no
// element, as in Go. Unknown elements and attributes are ignored, as Go does.
import type { XmlElement } from '../../xml/parse.js';
import { GoValueError, goTime } from './encode-json.js';
import { shapeOf, xmlTag } from './table.js';
import type { Scope, Shape } from './table.js';

const local = (name: string): string => name.slice(name.indexOf(':') + 1);
const prefix = (name: string): string => (name.includes(':') ? name.slice(0, name.indexOf(':')) : '');

/** Namespace bindings in scope: '' is the default namespace, other keys are prefixes. */
type Namespaces = Record<string, string>;

function scopeOf(el: XmlElement, parent: Namespaces): Namespaces {
  let ns = parent;
  for (const [k, v] of Object.entries(el.attrs)) {
    if (k === 'xmlns') ns = { ...ns, '': v };
    else if (k.startsWith('xmlns:')) ns = { ...ns, [k.slice(6)]: v };
  }
  return ns;
}

function parseScalar(shape: Shape, text: string, path: string): unknown {
  switch (shape.kind) {
    case 'string':
      return text;
    case 'bool': {
      const t = text.trim();
      if (t === '') return false;
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(t)) return true;
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(t)) return false;
      throw new GoValueError(path, text, 'bool');
    }
    case 'int':
    case 'float': {
      const t = text.trim();
      if (t === '') return 0;
      const ok =
        shape.kind === 'float' ? /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/ : shape.unsigned ? /^\+?\d+$/ : /^[+-]?\d+$/;
      if (!ok.test(t)) throw new GoValueError(path, text, shape.kind === 'int' ? 'integer' : 'float');
      return Number(t);
    }
    case 'pointer':
      return parseScalar(shape.elem, text, path);
    case 'special':
      if (shape.special === 'time') return text.trim() === '' ? undefined : goTime(text.trim(), path);
      return text;
    default:
      throw new GoValueError(path, text, `${shape.kind} from text`);
  }
}

/** The children reached by a tag path (`system>entry`), matching local names and the tag's namespace if any. */
function matching(
  el: XmlElement,
  ns: Namespaces,
  path: string[],
  namespace: string | undefined,
): Array<[XmlElement, Namespaces]> {
  let level: Array<[XmlElement, Namespaces]> = [[el, ns]];
  path.forEach((name, i) => {
    const next: Array<[XmlElement, Namespaces]> = [];
    for (const [parent, parentNs] of level) {
      for (const c of parent.children) {
        const cNs = scopeOf(c, parentNs);
        if (c.name !== name && local(c.name) !== name) continue;
        if (c.name.includes(':') && c.name === name) continue; // Go compares the tag with the local name only
        if (i === path.length - 1 && namespace !== undefined && cNs[prefix(c.name)] !== namespace) continue;
        next.push([c, cNs]);
      }
    }
    level = next;
  });
  return level;
}

function decodeElement(shape: Shape, el: XmlElement, ns: Namespaces, path: string): unknown {
  switch (shape.kind) {
    case 'pointer':
      return decodeElement(shape.elem, el, ns, path);
    case 'struct':
      return decodeStruct(shape, el, ns, path);
    case 'special':
      if (shape.special === 'alias') {
        const name = el.attrs.name ?? '';
        return name.startsWith('ua-') ? { Name: name.slice(3), UserDefined: true } : { Name: name, UserDefined: false };
      }
      return parseScalar(shape, el.text, path);
    case 'slice':
    case 'map':
      throw new GoValueError(path, el.name, `${shape.kind} element`);
    default:
      return parseScalar(shape, el.text, path);
  }
}

function decodeStruct(
  shape: Extract<Shape, { kind: 'struct' }>,
  el: XmlElement,
  ns: Namespaces,
  path: string,
): unknown {
  const out: Record<string, unknown> = {};
  for (const field of shape.fields) {
    const fieldPath = `${path}.${field.name}`;
    const fieldShape = shapeOf(field.type, shape.scope as Scope);
    if (field.name === 'XMLName') {
      out.XMLName = { Space: ns[prefix(el.name)] ?? '', Local: local(el.name) };
      continue;
    }
    const tag = xmlTag(field);
    if (tag.skip) continue;
    if (tag.chardata) {
      out[field.name] = parseScalar(fieldShape, el.text, fieldPath);
      continue;
    }
    if (tag.attr) {
      const name = tag.path[0] as string;
      const attr = Object.keys(el.attrs).find((a) => local(a) === name && !(a.includes(':') && a === name));
      if (attr !== undefined) out[field.name] = parseScalar(fieldShape, el.attrs[attr] as string, fieldPath);
      continue;
    }
    const found = matching(el, ns, tag.path, tag.namespace);
    if (found.length === 0) continue;
    if (fieldShape.kind === 'slice') {
      out[field.name] = found.map(([c, cNs], i) => decodeElement(fieldShape.elem, c, cNs, `${fieldPath}[${i}]`));
    } else {
      const [c, cNs] = found[found.length - 1] as [XmlElement, Namespaces];
      out[field.name] = decodeElement(fieldShape, c, cNs, fieldPath);
    }
  }
  return out;
}

/** Unmarshals `root` into the Go type `type` of `scope`'s file. */
export function decodeGoXml(type: string, root: XmlElement, scope: Scope = 'api'): unknown {
  return decodeElement(shapeOf(type, scope), root, scopeOf(root, {}), type);
}
