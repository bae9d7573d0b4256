import { describe, expect, it } from 'vitest';
import { extractGoTypes } from './extract.js';
import { PROVENANCE, shapeOf, UnknownGoTypeError, xmlTag } from './table.js';

// A made-up Go file in gofmt's layout, exercising each form the extractor must read.
const source = `package demo

type Mode string

// Widget is made up for this test.
type Widget struct {
	meta.TypeMeta
	meta.ObjectMeta \`json:"ObjectMeta"\`
	XMLName xml.Name \`xml:"widget"\`
	Size    uint32   \`xml:",chardata"\` // trailing comment
	Home    string   \`xml:"http://example.org home"\`
	Parts   []Part   \`xml:"parts>part,omitempty"\`
	hidden  bool
	Mode    *Mode    \`json:"mode,omitempty" xml:"mode,attr"\`
}

type Empty struct{}
`;

describe('extractGoTypes', () => {
  it('reads struct fields with their Go types and tags, and named types', () => {
    const types = extractGoTypes(source);
    expect(types.Mode).toEqual({ kind: 'named', underlying: 'string' });
    expect(types.Empty).toEqual({ kind: 'struct', fields: [] });
    expect(types.Widget).toEqual({
      kind: 'struct',
      fields: [
        { name: 'TypeMeta', type: 'meta.TypeMeta', embedded: true },
        { name: 'ObjectMeta', type: 'meta.ObjectMeta', embedded: true, json: 'ObjectMeta' },
        { name: 'XMLName', type: 'xml.Name', xml: 'widget' },
        { name: 'Size', type: 'uint32', xml: ',chardata' },
        { name: 'Home', type: 'string', xml: 'http://example.org home' },
        { name: 'Parts', type: '[]Part', xml: 'parts>part,omitempty' },
        { name: 'Mode', type: '*Mode', json: 'mode,omitempty', xml: 'mode,attr' },
      ],
    });
  });

  it('reads the xml tag forms the decoder relies on', () => {
    expect(xmlTag({ name: 'Parts', type: '[]Part', xml: 'parts>part,omitempty' })).toMatchObject({
      path: ['parts', 'part'],
      attr: false,
    });
    expect(xmlTag({ name: 'Home', type: 'string', xml: 'http://example.org home' })).toMatchObject({
      path: ['home'],
      namespace: 'http://example.org',
    });
    expect(xmlTag({ name: 'Bare', type: 'string' })).toMatchObject({ path: ['Bare'] });
  });
});

describe('the committed KubeVirt table', () => {
  it('says where it comes from', () => {
    expect(PROVENANCE.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(PROVENANCE.files).toContain('pkg/virt-launcher/virtwrap/api/schema.go');
  });

  it('resolves every field type of api.Domain and stats.DomainStats, and nothing unknown', () => {
    const seen = new Set<string>();
    const walk = (type: string, scope: 'api' | 'stats'): void => {
      const key = `${scope}:${type}`;
      if (seen.has(key)) return;
      seen.add(key);
      let shape = shapeOf(type, scope);
      while (shape.kind === 'pointer' || shape.kind === 'slice' || shape.kind === 'map') shape = shape.elem;
      if (shape.kind === 'struct')
        shape.fields.forEach((f) => walk(f.type, shape.kind === 'struct' ? shape.scope : scope));
    };
    walk('Domain', 'api');
    walk('DomainStats', 'stats');
    expect(seen.size).toBeGreaterThan(100);
    expect(() => shapeOf('NoSuchType')).toThrow(UnknownGoTypeError);
  });
});
