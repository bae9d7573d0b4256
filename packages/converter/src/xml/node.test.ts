import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { parseXml } from '../testing/xml-tree.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { toDomainXml } from './domain-xml.js';
import { el, escape, serialize, xmlSafe } from './node.js';

describe('xml writer', () => {
  it('escapes markup in text and attributes', () => {
    expect(serialize(el('a', { b: `"<&>'` }, [], '</a><x>&'))).toBe(
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
