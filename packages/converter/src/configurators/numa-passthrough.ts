// Guest NUMA passthrough (spec.domain.cpu.numa.guestMappingPassthrough): the guest sees one NUMA cell
// per host node its pinned vCPUs run on, each cell's memory is hugepages bound (strict) to that host
// node, and host distances between the involved nodes carry over. It runs after CPU pinning (the cells
// follow the <vcpupin>s) and after <memoryBacking> (the hugepages are split per cell). The host
// topology is the context's hostNumaNodes, which the launcher reads from the node.
import { parseQuantity, toBytes } from '@virt-launcher/shared';
import type { NumaCellDistance } from '../domain/types.js';
import { ConversionError } from '../errors.js';
import type { HostNumaNode } from '../gen/virtlauncher/converter/v1/converter.js';
import type { Configurator } from './configurator.js';
import { guestMemoryBytes } from './memory.js';

const FIELD = 'spec.domain.cpu.numa.guestMappingPassthrough';

/** Host node id -> the vCPUs pinned onto its CPUs, in host node order. */
function vcpusPerNode(nodes: HostNumaNode[], pins: { vcpu: number; cpuset: string }[]): Map<number, number[]> {
  const nodeOfCpu = new Map<number, number>();
  for (const node of nodes) for (const cpu of node.cpus) nodeOfCpu.set(cpu, node.id);
  const byNode = new Map<number, number[]>();
  for (const pin of pins) {
    const node = /^\d+$/.test(pin.cpuset) ? nodeOfCpu.get(Number(pin.cpuset)) : undefined;
    if (node === undefined) {
      throw new ConversionError('context.hostNumaNodes', pin.cpuset, `vCPU ${pin.vcpu}'s CPU is in no host NUMA node`);
    }
    byNode.set(node, [...(byNode.get(node) ?? []), pin.vcpu]);
  }
  return new Map(nodes.filter((n) => byNode.has(n.id)).map((n) => [n.id, byNode.get(n.id)!]));
}

function pageSizeBytes(text: string | undefined): bigint {
  const q = text !== undefined ? parseQuantity(text) : undefined;
  if (!q) {
    throw new ConversionError('spec.domain.memory.hugepages.pageSize', text, 'NUMA passthrough needs hugepages');
  }
  return toBytes(q);
}

export const numaPassthrough: Configurator = {
  name: 'numa-passthrough',
  configure(vmi, domain, ctx) {
    const cpu = vmi.spec.domain.cpu;
    if (!cpu?.numa?.guestMappingPassthrough) return;
    if (!cpu.dedicatedCpuPlacement || !domain.cputune || !domain.cpu) {
      throw new ConversionError(
        FIELD,
        cpu.dedicatedCpuPlacement ?? false,
        'needs spec.domain.cpu.dedicatedCpuPlacement',
      );
    }
    const nodes = ctx.raw.hostNumaNodes;
    if (nodes.length === 0) {
      throw new ConversionError('context.hostNumaNodes', nodes, 'NUMA passthrough needs the host NUMA topology');
    }
    const page = pageSizeBytes(vmi.spec.domain.memory?.hugepages?.pageSize);
    const byNode = vcpusPerNode(nodes, domain.cputune.vcpupins);
    const cells = BigInt(byNode.size);
    let memory = guestMemoryBytes(vmi);
    if (memory < cells * page) {
      throw new ConversionError(FIELD, String(memory), `${cells} NUMA cells need at least one ${page} B page each`);
    }
    if (memory % page !== 0n) {
      throw new ConversionError(FIELD, String(memory), `guest memory is not a multiple of the ${page} B page size`);
    }
    // Whole pages per cell; the pages left over go one each to the first cells.
    const extraPages = (memory % (page * cells)) / page;
    memory -= extraPages * page;
    const perCell = memory / cells;

    const guestId = new Map([...byNode.keys()].map((hostId, i) => [hostId, i]));
    domain.cpu.numaCells = [];
    domain.numatune = { memory: { mode: 'strict', nodeset: [...byNode.keys()].join(',') }, memnodes: [] };
    const pages: { sizeBytes: bigint; nodeset: string }[] = [];
    for (const node of nodes) {
      const vcpus = byNode.get(node.id);
      if (!vcpus) continue;
      const id = guestId.get(node.id)!;
      const distances: NumaCellDistance[] = Object.entries(node.distances)
        .filter(([sibling]) => guestId.has(Number(sibling)))
        .map(([sibling, value]) => ({ id: guestId.get(Number(sibling))!, value }));
      const bytes = perCell + (BigInt(id) < extraPages ? page : 0n);
      domain.cpu.numaCells.push({ id, cpus: vcpus.join(','), memoryKiB: bytes / 1024n, distances });
      domain.numatune.memnodes.push({ cellid: id, mode: 'strict', nodeset: String(node.id) });
      pages.push({ sizeBytes: page, nodeset: String(id) });
    }
    domain.memoryBacking = {
      ...domain.memoryBacking,
      hugepages: true,
      hugepagePages: pages,
      allocationImmediate: true,
      nosharepages: cpu.realtime ? true : undefined,
    };
  },
};
