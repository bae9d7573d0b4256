// Golden vectors from KubeVirt's converter tests (testdata/kubevirt), compared semantically after
// dropping empty elements. Each context mapping below says which KubeVirt test value it stands for.
import { describe, expect, it } from 'vitest';
import { convert } from './builder.js';
import type { Configurator } from './configurators/configurator.js';
import { cpu } from './configurators/cpu.js';
import { disks } from './configurators/disks.js';
import { interfaces } from './configurators/interfaces.js';
import { memoryBacking } from './configurators/memory-backing.js';
import { resolveContext } from './context/resolve.js';
import { emptyDomain } from './domain/types.js';
import { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import { flatten, goldenJson, MissingVectorError, readGolden, tree } from './testing/golden.js';
import { normalize, parseXml, type Node } from './testing/xml-tree.js';
import type { VirtualMachineInstance } from './vmi/types.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

/** The directories KubeVirt's unit tests use instead of the launcher's (mock ephemeral creator, cloud-init package default). */
const TEST_PATHS = {
  ephemeralOverlayDir: '/var/run/libvirt/kubevirt-ephemeral-disk',
  cloudInitDir: '/var/run/libvirt/cloud-init-dir',
};

function goldenContext(vector: string, extra: Partial<ConverterContext> = {}): ConverterContext {
  const ctx = ConverterContext.fromJSON(goldenJson(vector, 'context.json'));
  // The vectors cover the converter only; the domain manager's hot-plug ports come later in KubeVirt.
  return { ...ctx, paths: TEST_PATHS, hotplugPorts: false, ...extra };
}

/**
 * Where KubeVirt's golden XML breaks libvirt's schema, the converter writes the valid form (README,
 * "libvirt adaptations"); the expected tree is adjusted the same way: no name= on block disk sources.
 */
function schemaValid(node: Node): Node {
  const children = node.children.map(schemaValid);
  if (node.name === 'disk' && node.attrs.type === 'block') {
    for (const c of children) if (c.name === 'source') delete c.attrs.name;
  }
  return { ...node, children };
}

function expectSameTree(actual: Node, expected: Node): void {
  expect(flatten(actual).join('\n')).toEqual(flatten(schemaValid(expected)).join('\n'));
}

/** Runs one configurator alone, as KubeVirt's configurator tests do, and keeps the named elements. */
function fragment(
  step: Configurator,
  vmi: VirtualMachineInstance,
  ctx: ConverterContext,
  pick: (root: Node) => Node[],
  tweak?: (r: ReturnType<typeof resolveContext>) => void,
): Node {
  const resolved = resolveContext(ctx, vmi);
  tweak?.(resolved);
  const domain = emptyDomain();
  step.configure(vmi, domain, resolved);
  const children = pick(parseXml(toDomainXml(domain)));
  return (
    normalize({ name: 'fragment', attrs: {}, children, text: '' }) ?? {
      name: 'fragment',
      attrs: {},
      children: [],
      text: '',
    }
  );
}

const child = (root: Node, name: string) => root.children.filter((c) => c.name === name);
const devices = (root: Node, name: string) => child(root, 'devices').flatMap((d) => child(d, name));
const vmiOf = (vector: string) => goldenJson(vector, 'vmi.json') as unknown as VirtualMachineInstance;

describe('golden vectors', () => {
  it('a vector file that is not there is an error naming it, so its test fails instead of skipping', () => {
    expect(() => readGolden('x86_64', 'absent.xml')).toThrow(MissingVectorError);
    expect(() => readGolden('x86_64', 'absent.xml')).toThrow(/x86_64\/absent\.xml/);
  });

  it('x86_64: the full VMI converts to domain_x86_64.xml', () => {
    const domain = convert(vmiOf('x86_64'), goldenContext('x86_64'));
    expectSameTree(tree(toDomainXml(domain)), tree(readGolden('x86_64', 'domain.xml')));
  });

  it('x86_64: parseVmi (webhook defaults) on the already-defaulted VMI changes nothing that shows', () => {
    const vmi = parseVmi(readGolden('x86_64', 'vmi.json'), { admission: false });
    expectSameTree(tree(toDomainXml(convert(vmi, goldenContext('x86_64')))), tree(readGolden('x86_64', 'domain.xml')));
  });

  it('x86_64: the VMI before API defaults converts to the same domain once parseVmi defaults it', () => {
    const vmi = parseVmi(readGolden('x86_64', 'vmi.pre-defaults.json'), { admission: false });
    expectSameTree(tree(toDomainXml(convert(vmi, goldenContext('x86_64')))), tree(readGolden('x86_64', 'domain.xml')));
  });

  it('cpu-topology: cores 4, threads 2, sockets 6 -> 48 vCPUs, host-model', () => {
    // The test builds the configurator with mpxCPUValidation=false (context.json lists it).
    const actual = fragment(
      cpu,
      vmiOf('cpu-topology'),
      goldenContext('cpu-topology'),
      (r) => [...child(r, 'cpu'), ...child(r, 'vcpu')],
      (r) => {
        r.arch = { ...r.arch, mpxValidation: false };
      },
    );
    expectSameTree(actual, tree(readGolden('cpu-topology', 'expected.xml')));
  });

  it('memory-backing-hugepages: hugepages with a memfd source', () => {
    const actual = fragment(
      memoryBacking,
      vmiOf('memory-backing-hugepages'),
      goldenContext('memory-backing-hugepages'),
      (r) => child(r, 'memoryBacking'),
    );
    expectSameTree(actual, tree(readGolden('memory-backing-hugepages', 'expected.xml')));
  });

  it('network-masquerade-pod: tap-attached masquerade interface (ROM tuning off as in the test)', () => {
    const actual = fragment(
      interfaces,
      vmiOf('network-masquerade-pod'),
      goldenContext('network-masquerade-pod'),
      (r) => devices(r, 'interface'),
      (r) => {
        r.arch = { ...r.arch, romTuning: false };
      },
    );
    expectSameTree(actual, tree(readGolden('network-masquerade-pod', 'expected.xml')));
  });

  it.each(['storage-cloudinit-nocloud', 'storage-containerdisk', 'storage-empty-cdrom'])('%s: one disk', (vector) => {
    const actual = fragment(disks, vmiOf(vector), goldenContext(vector), (r) => devices(r, 'disk'));
    expectSameTree(actual, tree(readGolden(vector, 'expected.xml')));
  });
});
