// Which guest NUMA cell a PCI host device belongs to, from its host NUMA node and the domain's host-to-guest
// NUMA mapping (KubeVirt's rule for PCINUMAAwareTopology): the <numatune> memnodes first (guest cell -> host
// node, read in reverse; a host node bound to two cells is ambiguous and skipped), else the first CPU of the
// host node that a vCPU is pinned to, and that vCPU's guest cell. What cannot be mapped is a warning, which
// strict placement (guest NUMA passthrough) turns into a refusal.
import type { Domain } from '../domain/types.js';
import type { HostNumaNode } from '../gen/virtlauncher/converter/v1/converter.js';

/** A PCI device to map: its host address (0000:81:01.0) and host NUMA node (undefined: no affinity). */
export interface PciDeviceNode {
  address: string;
  hostNode: number | undefined;
}

/** Why a device (or, without `address`, a mapping input) could not be used. */
export interface CellWarning {
  address?: string;
  reason: string;
}

export interface CellLookup {
  /** Host PCI address -> guest NUMA cell id. */
  cells: Map<string, number>;
  warnings: CellWarning[];
}

/** libvirt cpuset syntax without exclusions: `0-3,8`. Undefined when the text is not one. */
export function parseCpuList(text: string): number[] | undefined {
  const out: number[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    if (!m) return undefined;
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (to < from) return undefined;
    for (let n = from; n <= to; n++) out.push(n);
  }
  return out;
}

/** Host node -> guest cell from the memnodes; host nodes bound to two different cells are dropped. */
function memnodeCells(domain: Domain, warnings: CellWarning[]): Map<number, number> {
  const result = new Map<number, number>();
  const guestCells = new Set(domain.cpu?.numaCells.map((c) => c.id) ?? []);
  if (!domain.numatune || guestCells.size === 0) return result;
  const ambiguous = new Set<number>();
  for (const memnode of domain.numatune.memnodes) {
    if (!guestCells.has(memnode.cellid)) {
      warnings.push({ reason: `ignoring NUMATune memnode for unknown guest NUMA cell ${memnode.cellid}` });
      continue;
    }
    const hostNodes = parseCpuList(memnode.nodeset);
    if (!hostNodes) {
      warnings.push({ reason: `ignoring memnode of guest cell ${memnode.cellid}: nodeset "${memnode.nodeset}"` });
      continue;
    }
    for (const host of hostNodes) {
      if (ambiguous.has(host)) continue;
      const known = result.get(host);
      if (known !== undefined && known !== memnode.cellid) {
        result.delete(host);
        ambiguous.add(host);
        warnings.push({
          reason: `host NUMA node ${host} is mapped to multiple guest NUMA cells (${known} and ${memnode.cellid}); its memnode mapping is ignored`,
        });
        continue;
      }
      result.set(host, memnode.cellid);
    }
  }
  return result;
}

/** Host CPU -> the vCPU pinned to it. */
function vcpuOfHostCpu(domain: Domain, warnings: CellWarning[]): Map<number, number> {
  const result = new Map<number, number>();
  for (const pin of domain.cputune?.vcpupins ?? []) {
    const cpus = parseCpuList(pin.cpuset);
    if (!cpus) {
      warnings.push({ reason: `ignoring vCPU ${pin.vcpu}'s pinning "${pin.cpuset}"` });
      continue;
    }
    for (const cpu of cpus) result.set(cpu, pin.vcpu);
  }
  return result;
}

function cellOfVcpu(domain: Domain, warnings: CellWarning[]): Map<number, number> {
  const result = new Map<number, number>();
  for (const cell of domain.cpu?.numaCells ?? []) {
    if (cell.cpus === '') continue;
    const vcpus = parseCpuList(cell.cpus);
    if (!vcpus) {
      warnings.push({ reason: `ignoring guest NUMA cell ${cell.id} with CPU set "${cell.cpus}"` });
      continue;
    }
    for (const vcpu of vcpus) result.set(vcpu, cell.id);
  }
  return result;
}

export function guestCellsOf(devices: PciDeviceNode[], domain: Domain, hostNodes: HostNumaNode[]): CellLookup {
  const lookup: CellLookup = { cells: new Map(), warnings: [] };
  const { warnings } = lookup;
  if (devices.length === 0 || !domain.cpu || domain.cpu.numaCells.length === 0) return lookup;
  const byMemnode = memnodeCells(domain, warnings);
  const pinned = vcpuOfHostCpu(domain, warnings);
  if (byMemnode.size === 0 && pinned.size === 0) return lookup;
  const cells = cellOfVcpu(domain, warnings);
  const cpusOfNode = new Map(hostNodes.map((n) => [n.id, n.cpus]));
  for (const { address, hostNode } of devices) {
    if (hostNode === undefined) {
      warnings.push({ address, reason: 'its host NUMA node is not known (no numaNode in the context)' });
      continue;
    }
    const viaMemnode = byMemnode.get(hostNode);
    if (viaMemnode !== undefined) {
      lookup.cells.set(address, viaMemnode);
      continue;
    }
    const cpus = cpusOfNode.get(hostNode);
    if (!cpus) {
      warnings.push({ address, reason: `host NUMA node ${hostNode} is not in context.hostNumaNodes` });
      continue;
    }
    for (const cpu of cpus) {
      const vcpu = pinned.get(cpu);
      const cell = vcpu === undefined ? undefined : cells.get(vcpu);
      if (cell !== undefined) {
        lookup.cells.set(address, cell);
        break;
      }
    }
    if (!lookup.cells.has(address)) {
      warnings.push({ address, reason: `host NUMA node ${hostNode} cannot be mapped to a guest NUMA cell` });
    }
  }
  return lookup;
}
