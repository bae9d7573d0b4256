// Adaptations of KubeVirt's domain shape to an older libvirt, decided by context.libvirtVersion.
// Each is listed in the README. An unknown version gets KubeVirt's shape unchanged.
import { libvirtOlderThan } from '../context/resolve.js';
import type { Configurator } from './configurator.js';

/** First libvirt major assumed to take KubeVirt's memory hot-plug shape; 9.0 is measured to refuse it. */
export const MEMORY_HOTPLUG_SHAPE_SINCE = [10, 0] as const;

export const libvirtCompat: Configurator = {
  name: 'libvirt-compat',
  configure(_vmi, domain, ctx) {
    const [major, minor] = MEMORY_HOTPLUG_SHAPE_SINCE;
    if (!domain.maxMemory || !libvirtOlderThan(ctx, major, minor)) return;
    // libvirt 9.0: `<maxMemory slots="0">` is refused ("both maximum memory size and memory slot count
    // must be specified"): one slot is enough, virtio-mem does not use DIMM slots.
    if (domain.maxMemory.slots < 1) domain.maxMemory.slots = 1;
    // libvirt 9.0: memory hot-plug needs a guest NUMA topology; one cell holding all vCPUs and memory
    // is the topology the guest had anyway.
    if (domain.cpu && domain.cpu.numaCells.length === 0 && domain.memoryBytes !== undefined) {
      const vcpus = domain.vcpu ?? 1;
      domain.cpu.numaCells.push({
        id: 0,
        cpus: vcpus > 1 ? `0-${vcpus - 1}` : '0',
        memoryKiB: domain.memoryBytes / 1024n,
      });
    }
  },
};
