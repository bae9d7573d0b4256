// The host's view of a PCI device for a config drive's device metadata: the NUMA node sysfs gives it
// (/sys/bus/pci/devices/<addr>/numa_node, -1 when the platform has none) and that node's CPUs
// (/sys/bus/node/devices/node<N>/cpulist), as KubeVirt reads them. A file that cannot be read or makes no
// sense leaves the fact out: the entry is still listed, as KubeVirt lists it, without NUMA facts.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCpuList } from '../pod-cpuset.js';
import type { HostPciFacts } from './device-metadata.js';

async function read(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
}

/** `sysRoot` is where sysfs is mounted: `/sys` in a pod, a made-up tree in tests. */
export function sysfsPciFacts(sysRoot = '/sys'): HostPciFacts {
  return {
    async numaNode(pciAddress) {
      const text = await read(join(sysRoot, 'bus/pci/devices', pciAddress, 'numa_node'));
      return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
    },
    async nodeCpus(node) {
      const text = await read(join(sysRoot, 'bus/node/devices', `node${node}`, 'cpulist'));
      try {
        return text === undefined ? undefined : parseCpuList(text, `node${node}/cpulist`);
      } catch {
        return undefined;
      }
    },
  };
}
