// The host's view of a PCI device for a config drive's device metadata: the NUMA node sysfs gives it (read as the
// converter's PCI NUMA placement reads it, host-devices/numa-nodes.ts) and that node's CPUs
// (/sys/bus/node/devices/node<N>/cpulist), as KubeVirt reads them. A file that cannot be read or makes no
// sense leaves the fact out: the entry is still listed, as KubeVirt lists it, without NUMA facts.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readPciNumaNode } from '../host-devices/numa-nodes.js';
import { parseCpuList } from '../pod-cpuset.js';
import type { HostPciFacts } from './device-metadata.js';

/** `sysfsRoot` is where sysfs is mounted: `/sys` in a pod, a made-up tree in tests. */
export function sysfsPciFacts(sysfsRoot = '/sys'): HostPciFacts {
  return {
    numaNode: (pciAddress) => readPciNumaNode(pciAddress, sysfsRoot),
    async nodeCpus(node) {
      const path = join(sysfsRoot, 'bus/node/devices', `node${node}`, 'cpulist');
      const text = await readFile(path, 'utf8').catch(() => undefined);
      try {
        return text === undefined ? undefined : parseCpuList(text, `node${node}/cpulist`);
      } catch {
        return undefined;
      }
    },
  };
}
