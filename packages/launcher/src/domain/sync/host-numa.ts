// The host's NUMA topology, for guest NUMA passthrough (spec.domain.cpu.numa.guestMappingPassthrough). KubeVirt's
// virt-handler reads it from libvirt's capabilities (<host><topology><cells>) and sends it with every sync as
// options.topology; its launcher converts with that. This launcher does the same when the topology comes with the
// request, and otherwise asks its own libvirt daemon for the same capabilities (a stand-in virt-handler such as
// virt-pod sends none). libvirt is trusted over sysfs here because it is what KubeVirt trusts, and it already
// folds in what the daemon can use (its page sizes, its view of CPUs). Parsing is pure and refuses anything
// that is not a topology, so a malformed answer never becomes a made-up guest layout.
import type { Cell, Topology, VirtualMachineOptions } from '../../gen/kubevirt/cmd/v1/cmd.js';
import type { ConverterContext } from '../../adapters/converter.js';
import { child, children, parseXml, XmlParseError, type XmlElement } from '../../xml/parse.js';
import type { VmiView } from '../../vmi.js';
import { parseCpuList, PodCpuSetError } from './pod-cpuset.js';

export type HostNumaNode = ConverterContext['hostNumaNodes'][number];

/** No host has more NUMA cells or CPUs than this; a larger answer is refused before it is built. */
const MAX_ID = 1 << 20;

/** The topology could not be read: `where` names the element or attribute, `value` what was found there. */
export class HostTopologyError extends Error {
  constructor(
    readonly where: string,
    readonly value: string,
    reason: string,
  ) {
    super(`host NUMA topology ${where}: ${JSON.stringify(value)} ${reason}`);
    this.name = 'HostTopologyError';
  }
}

function whole(text: string | undefined, where: string, max = MAX_ID): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) > max) {
    throw new HostTopologyError(where, text ?? '', `is not a whole number up to ${max}`);
  }
  return Number(text);
}

function big(text: string | undefined, where: string): bigint {
  if (text === undefined || !/^\d{1,20}$/.test(text.trim())) {
    throw new HostTopologyError(where, text ?? '', 'is not a whole number');
  }
  return BigInt(text.trim());
}

/** libvirt writes a CPU's thread siblings as a CPU list (`0,4` or `2-3`). */
function siblings(text: string | undefined, where: string): number[] {
  if (text === undefined || text === '') return [];
  try {
    return parseCpuList(text, where);
  } catch (err) {
    if (err instanceof PodCpuSetError) throw new HostTopologyError(where, text, 'is not a CPU list');
    throw err;
  }
}

function cellOf(el: XmlElement, index: number): Cell {
  const at = `cell[${index}]`;
  const id = whole(el.attrs.id, `${at}.id`);
  const memory = child(el, 'memory');
  return {
    id,
    memory: memory && { amount: big(memory.text, `cell ${id} memory`), unit: memory.attrs.unit ?? 'KiB' },
    pages: children(el, 'pages').map((p, i) => ({
      count: big(p.text, `cell ${id} pages[${i}]`),
      unit: p.attrs.unit ?? 'KiB',
      size: whole(p.attrs.size, `cell ${id} pages[${i}].size`, 2 ** 32 - 1),
    })),
    distances: children(child(el, 'distances'), 'sibling').map((s, i) => ({
      id: whole(s.attrs.id, `cell ${id} distances[${i}].id`),
      value: BigInt(whole(s.attrs.value, `cell ${id} distances[${i}].value`, 255)),
    })),
    cpus: children(child(el, 'cpus'), 'cpu').map((c, i) => ({
      id: whole(c.attrs.id, `cell ${id} cpus[${i}].id`),
      siblings: siblings(c.attrs.siblings, `cell ${id} cpus[${i}].siblings`),
    })),
  };
}

/** The NUMA cells of libvirt's host capabilities XML, in the shape virt-handler sends (cmd.v1 Topology). */
export function parseCapabilitiesTopology(xml: string): Topology {
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (err) {
    if (err instanceof XmlParseError) throw new HostTopologyError('capabilities', xml.slice(0, 40), err.message);
    throw err;
  }
  if (root.name !== 'capabilities') throw new HostTopologyError('root element', root.name, 'is not <capabilities>');
  const cells = children(child(child(child(root, 'host'), 'topology'), 'cells'), 'cell');
  return { numaCells: cells.map(cellOf) };
}

/**
 * The converter's view of a topology: each node's id, CPUs and distances. Two nodes with one id, or one CPU in
 * two nodes, would make the guest layout ambiguous: refused.
 */
export function hostNumaNodes(topology: Topology): HostNumaNode[] {
  const ids = new Set<number>();
  const cpuNode = new Map<number, number>();
  return topology.numaCells.map((cell) => {
    if (ids.has(cell.id)) throw new HostTopologyError('cell id', String(cell.id), 'appears twice');
    ids.add(cell.id);
    for (const cpu of cell.cpus) {
      const other = cpuNode.get(cpu.id);
      if (other !== undefined) {
        throw new HostTopologyError(`cell ${cell.id} cpu`, String(cpu.id), `is also in cell ${other}`);
      }
      cpuNode.set(cpu.id, cell.id);
    }
    const distances: Record<number, number> = {};
    for (const s of cell.distances) {
      if (s.value > 255n) throw new HostTopologyError(`cell ${cell.id} distance`, String(s.value), 'is above 255');
      distances[s.id] = Number(s.value);
    }
    // Siblings let the converter keep a guest core's threads on one host core (KubeVirt's CPU pool).
    const cpuSiblings = cell.cpus
      .filter((c) => c.siblings.length > 0)
      .map((c) => ({ cpu: c.id, siblings: c.siblings }));
    return { id: cell.id, cpus: cell.cpus.map((c) => c.id), distances, cpuSiblings };
  });
}

/** Whether the VMI asks for guest NUMA passthrough, the only case that needs the topology. */
export function wantsNumaPassthrough(vmi: Pick<VmiView, 'raw'>): boolean {
  try {
    const doc = JSON.parse(vmi.raw.toString('utf8')) as {
      spec?: { domain?: { cpu?: { numa?: { guestMappingPassthrough?: unknown } } } };
    };
    // guestMappingPassthrough is an empty object in KubeVirt's API: being there is the request.
    return Boolean(doc.spec?.domain?.cpu?.numa?.guestMappingPassthrough);
  } catch {
    // The request was parsed already to make the view; unparsable here means there is nothing to map.
    return false;
  }
}

/**
 * The topology to convert with: the one virt-handler sent when it has cells (as KubeVirt's launcher uses it),
 * else the one this launcher's libvirt daemon reports.
 */
export async function readHostNumaNodes(
  options: VirtualMachineOptions | undefined,
  capabilities: () => Promise<string>,
): Promise<HostNumaNode[]> {
  const sent = options?.topology;
  if (sent && sent.numaCells.length > 0) return hostNumaNodes(sent);
  return hostNumaNodes(parseCapabilitiesTopology(await capabilities()));
}
