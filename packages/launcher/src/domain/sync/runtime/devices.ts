// Device elements of a domain XML, keyed by alias: the runtime reconcile compares the converter's domain (what
// the VMI asks for) with libvirt's live XML device by device. Both are XML libvirt or the converter wrote, so a
// device is one balanced element of its kind (disks and interfaces never nest inside each other).

export interface DeviceXml {
  /** The element's name: `disk`, `interface` or `memory`. */
  kind: string;
  /** The alias libvirt knows it by (`ua-<name>` for the VMI's devices), or '' when it has none. */
  alias: string;
  /** The element's full text, as found. */
  xml: string;
}

const attr = (tag: string, name: string): string | undefined =>
  new RegExp(`\\s${name}=["']([^"']*)["']`).exec(tag)?.[1];

/** `&amp;` and friends back to their characters, for values (paths, aliases) read out of attributes. */
export function unescapeXml(value: string): string {
  return value.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] ?? '',
  );
}

/** Every `<kind>` element below `<devices>`, in document order. */
export function devicesOf(domainXml: string, kind: 'disk' | 'interface' | 'memory'): DeviceXml[] {
  const devices = /<devices>([\s\S]*)<\/devices>/.exec(domainXml)?.[1] ?? '';
  const out: DeviceXml[] = [];
  for (const m of devices.matchAll(new RegExp(`<${kind}\\b[^>]*?(?:/>|>[\\s\\S]*?</${kind}>)`, 'g'))) {
    const alias = /<alias\b[^>]*>/.exec(m[0])?.[0];
    out.push({ kind, alias: alias ? unescapeXml(attr(alias, 'name') ?? '') : '', xml: m[0] });
  }
  return out;
}

/** The value of `attribute` on the first `<tag>` inside a device element, unescaped. */
export function innerAttr(deviceXml: string, tag: string, attribute: string): string | undefined {
  const element = new RegExp(`<${tag}\\b[^>]*>`).exec(deviceXml)?.[0];
  if (!element) return undefined;
  const value = attr(element, attribute);
  return value === undefined ? undefined : unescapeXml(value);
}

/** The disk's source: a file path or a block device node. */
export function diskSource(diskXml: string): string | undefined {
  return innerAttr(diskXml, 'source', 'file') ?? innerAttr(diskXml, 'source', 'dev');
}

/** The link state an interface asks for: libvirt's default is up when `<link>` is absent. */
export function linkState(ifaceXml: string): 'up' | 'down' {
  return innerAttr(ifaceXml, 'link', 'state') === 'down' ? 'down' : 'up';
}

/** The interface element with its `<link state>` set (added after `<mac>` or at the start when missing). */
export function withLinkState(ifaceXml: string, state: 'up' | 'down'): string {
  if (/<link\b[^>]*\/>/.test(ifaceXml)) return ifaceXml.replace(/<link\b[^>]*\/>/, `<link state='${state}'/>`);
  return ifaceXml.replace(/(<interface\b[^>]*>)/, `$1<link state='${state}'/>`);
}
