import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { parseXml } from '../testing/xml-tree.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { toDomainXml } from './domain-xml.js';
import { escape, tag, XmlWriter, xmlSafe } from './writer.js';

describe('xml writer', () => {
  it('indents children, leaves out undefined attributes and self-closes elements left empty', () => {
    const w = new XmlWriter();
    w.open('a', { x: 1, y: undefined, z: 2n });
    w.open('b').close();
    w.open('c', { k: 'v' }).leaf('d', undefined, 'text').leaf('e', {}, '').close();
    w.close();
    expect(w.toString()).toBe('<a x="1" z="2">\n  <b/>\n  <c k="v">\n    <d>text</d>\n    <e/>\n  </c>\n</a>\n');
  });

  it('writes Tags as open() and leaf() write the same attributes', () => {
    const a = tag('a', 'x', 'y', 'z');
    const b = tag('b', 'k');
    const viaTags = new XmlWriter()
      .openTag(a, undefined, 'v"', 2n)
      .leafTag(b, undefined)
      .textTag(b, 'text', '<')
      .textTag(b, '', 'e')
      .leafTag(b, 'e&')
      .leafTag(b, 'e')
      .openTag(b, 1)
      .close()
      .close()
      .toString();
    const viaAttrs = new XmlWriter()
      .open('a', { x: undefined, y: 'v"', z: 2n })
      .leaf('b', { k: undefined })
      .leaf('b', { k: '<' }, 'text')
      .leaf('b', { k: 'e' }, '')
      .leaf('b', { k: 'e&' })
      .leaf('b', { k: 'e' })
      .open('b', { k: 1 })
      .close()
      .close()
      .toString();
    expect(viaTags).toBe(viaAttrs);
    expect(viaTags).toBe(
      '<a y="v&quot;" z="2">\n  <b/>\n  <b k="&lt;">text</b>\n  <b k="e"/>\n  <b k="e&amp;"/>\n  <b k="e"/>\n  <b k="1"/>\n</a>\n',
    );
    expect(() => new XmlWriter().leafTag(b, 1, 2)).toThrow(/<b> has 1 attributes/);
  });

  it('refuses a document with an element left open, and a close() without open()', () => {
    expect(() => new XmlWriter().open('a').toString()).toThrow(/<a> left open/);
    expect(() => new XmlWriter().close()).toThrow(/without open/);
  });

  it('escapes markup in text and attributes', () => {
    expect(new XmlWriter().leaf('a', { b: `"<&>'` }, '</a><x>&').toString()).toBe(
      '<a b="&quot;&lt;&amp;&gt;&apos;">&lt;/a&gt;&lt;x&gt;&amp;</a>\n',
    );
    expect(escape('\u0001x\uD800')).toBe('\uFFFDx\uFFFD');
  });

  it('property: any VMI strings give well-formed XML that keeps them', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, text, text, text, text, (name, ns, disk, serial, args, vendor) => {
        const vmi: VirtualMachineInstance = {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachineInstance',
          metadata: { name, namespace: ns, uid: name },
          spec: {
            domain: {
              resources: { requests: { memory: '64Mi' } },
              firmware: { serial, kernelBoot: { kernelArgs: args || 'x', container: { kernelPath: `/k/${disk}` } } },
              features: { hyperv: { vendorid: { vendorid: vendor } } },
              devices: {
                disks: [{ name: disk, serial, disk: { bus: 'virtio' } }],
                interfaces: [{ name: disk, macAddress: serial, masquerade: {} }],
              },
            },
            volumes: [{ name: disk, hostDisk: { path: `/h/${serial}` } }],
            networks: [{ name: disk, pod: {} }],
          },
        };
        const xml = toDomainXml(convert(vmi, ConverterContext.fromPartial({})));
        const root = parseXml(xml);
        const nameNode = root.children.find((c) => c.name === 'name');
        expect(nameNode?.text).toBe(xmlSafe(`${ns}_${name}`));
        const disks = root.children.find((c) => c.name === 'devices')?.children.filter((c) => c.name === 'disk');
        expect(disks?.[0]?.children.find((c) => c.name === 'alias')?.attrs.name).toBe(xmlSafe(`ua-${disk}`));
      }),
      { numRuns: 300 },
    );
  });
});
