// Golden vectors from KubeVirt's whole-converter tests (converter_test.go and the network, storage, arch,
// vcpu, virtio, PCI-placement and grace tests). testdata/kubevirt/COVERAGE-converter.md maps every test
// case to a vector folder or says why it has none; this file runs each folder the table names.
//
// A vector runs the way `vmi-to-domain` does (parseVmi with admission, then convert on the whole VMI),
// with the context the Go test sets. KubeVirt's tests assert one part of the domain each, so a vector's
// select.txt names that part (paths below) and expected.xml holds exactly it; a negative vector has
// expected-error.txt instead: the VMI field the refusal must name, then a text its message must hold.
import { describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import { ConversionError } from './errors.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { expectedRefusal, flatten, goldenJson, readGolden, sortedAttrs, thrownBy, tree } from './testing/golden.js';
import { normalize, parseXml, type Node } from './testing/xml-tree.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

/** The directories KubeVirt's unit tests use (mock ephemeral creator, cloud-init package default). */
const TEST_PATHS = {
  ephemeralOverlayDir: '/var/run/libvirt/kubevirt-ephemeral-disk',
  cloudInitDir: '/var/run/libvirt/cloud-init-dir',
};

/** The coverage tables of whole-converter vectors (one per group of KubeVirt test files). */
const COVERAGE_TABLES = ['COVERAGE-converter.md', 'COVERAGE-kvm.md'];

/** Vector folders named in the coverage tables (a backticked name in a table's "vector" column). */
function coveredVectors(): string[] {
  const table = COVERAGE_TABLES.map((file) => readGolden('.', file)).join('\n');
  const names = new Set<string>();
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    // | KubeVirt file | test case | vector | note |
    const cell = cells[3] ?? '';
    for (const m of cell.matchAll(/`([a-z0-9-]+)`/g)) names.add(m[1] as string);
  }
  return [...names].sort();
}

/**
 * One selection path: `a/b[attr=value]/c[2]@x,y` (`@x` alone: <domain>'s own attributes). Each step
 * names a child element, optionally filtered by an attribute value or a 1-based position among the
 * matches; `@x,y` keeps only those attributes (and drops children), for a test that asserts single
 * attributes of an element.
 */
function select(root: Node, path: string): Node[] {
  const [steps, keep] = path.split('@') as [string, string | undefined];
  let nodes = [root];
  // An empty path (`@type`) is the <domain> element itself.
  for (const step of steps === '' ? [] : steps.split('/')) {
    const m = /^([\w:-]+)(?:\[(?:(\d+)|([\w:-]+)=([^\]]*))\])?$/.exec(step);
    if (!m) throw new Error(`bad selection step ${JSON.stringify(step)} in ${path}`);
    const [, name, index, attr, value] = m;
    let next = nodes.flatMap((n) => n.children.filter((c) => c.name === name));
    if (attr !== undefined) next = next.filter((c) => c.attrs[attr] === value);
    if (index !== undefined) next = next.slice(Number(index) - 1, Number(index));
    nodes = next;
  }
  if (keep === undefined) return nodes;
  const names = keep.split(',');
  return nodes.map((n) => ({
    name: n.name,
    attrs: Object.fromEntries(Object.entries(n.attrs).filter(([k]) => names.includes(k))),
    children: [],
    text: '',
  }));
}

const EMPTY: Node = { name: 'fragment', attrs: {}, children: [], text: '' };

function contextOf(vector: string): ConverterContext {
  const ctx = ConverterContext.fromJSON(goldenJson(vector, 'context.json'));
  // KubeVirt's converter adds no hot-plug root ports (its domain manager does, after the first define).
  return { ...ctx, paths: { ...TEST_PATHS, ...ctx.paths }, hotplugPorts: ctx.hotplugPorts ?? false };
}

function run(vector: string) {
  const ctx = contextOf(vector);
  const vmi = parseVmi(readGolden(vector, 'vmi.json'), { architecture: ctx.architecture });
  return toDomainXml(convert(vmi, ctx));
}

describe('golden vectors: KubeVirt converter tests (COVERAGE-converter.md)', () => {
  const vectors = coveredVectors();

  it('the coverage table names vectors, and every folder it names exists', () => {
    expect(vectors.length).toBeGreaterThan(0);
    for (const v of vectors) expect(() => readGolden(v, 'vmi.json')).not.toThrow();
  });

  it.each(vectors)('%s', (vector) => {
    const refusal = expectedRefusal(vector);
    if (refusal) {
      const caught = thrownBy(() => run(vector));
      expect(caught, 'the conversion must be refused').toBeInstanceOf(ConversionError);
      expect((caught as ConversionError).field).toBe(refusal.field);
      if (refusal.text) expect((caught as ConversionError).message).toContain(refusal.text);
      return;
    }
    const root = parseXml(run(vector));
    const picked = readGolden(vector, 'select.txt')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'))
      .flatMap((path) => select(root, path));
    const actual = normalize({ ...EMPTY, children: picked }) ?? EMPTY;
    const expected = tree(readGolden(vector, 'expected.xml'));
    expect(flatten(sortedAttrs(actual)).join('\n')).toEqual(flatten(sortedAttrs(expected)).join('\n'));
  });
});
