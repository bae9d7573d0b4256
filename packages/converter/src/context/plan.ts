// Facts several configurators share, computed once before they run: CPU topology, vCPU count, the
// IOThread plan and whether guest memory must be a memfd.
import { parseQuantity } from '@virt-launcher/shared';
import type { VirtualMachineInstance } from '../vmi/types.js';
import type { ArchFacts } from './arch.js';

export interface Topology {
  sockets: number;
  cores: number;
  threads: number;
}

export interface IoThreadPlan {
  /** <iothreads> count; 0 = none. */
  total: number;
  /** Threads shared round-robin by disks without a dedicated one. */
  shared: number;
  supplementalPool: boolean;
}

export const MEMFD_ANNOTATION = 'kubevirt.io/memfd';

function ceilCpu(text: string | undefined): number | undefined {
  const q = text !== undefined ? parseQuantity(text) : undefined;
  return q ? Number((q.numerator + q.denominator - 1n) / q.denominator) : undefined;
}

export function topologyOf(vmi: VirtualMachineInstance): Topology {
  const cpu = vmi.spec.domain.cpu;
  const resources = vmi.spec.domain.resources;
  if (!cpu || (!cpu.cores && !cpu.sockets && !cpu.threads)) {
    const sockets = ceilCpu(resources?.limits?.cpu) ?? ceilCpu(resources?.requests?.cpu) ?? 1;
    return { sockets: Math.max(1, sockets), cores: 1, threads: 1 };
  }
  return { sockets: cpu.sockets || 1, cores: cpu.cores || 1, threads: cpu.threads || 1 };
}

export function vcpuCount(t: Topology): number {
  return t.sockets * t.cores * t.threads;
}

/**
 * KubeVirt's IOThread counts. The auto policy's pool is twice the CPU request (else the CPU limit, else
 * one CPU): the pod's CPU resources bound it, never the guest's vCPU topology.
 */
export function ioThreadPlan(vmi: VirtualMachineInstance): IoThreadPlan {
  const domain = vmi.spec.domain;
  const disks = domain.devices.disks ?? [];
  const policy = domain.ioThreadsPolicy;
  const dedicated = disks.filter((d) => d.dedicatedIOThread === true).length;
  if (!policy && dedicated === 0) return { total: 0, shared: 0, supplementalPool: false };
  if (policy === 'supplementalPool') {
    const n = domain.ioThreads?.supplementalPoolThreadCount ?? 0;
    return { total: n, shared: 0, supplementalPool: true };
  }
  let limit = 1;
  if (policy === 'auto') {
    const cpus = ceilCpu(domain.resources?.requests?.cpu) ?? ceilCpu(domain.resources?.limits?.cpu) ?? 1;
    limit = domain.cpu?.dedicatedCpuPlacement && domain.cpu.isolateEmulatorThread ? 1 : 2 * cpus;
  }
  let shared = disks.length - dedicated;
  if (shared + dedicated > limit) shared = Math.max(1, limit - dedicated);
  return { total: shared + dedicated, shared, supplementalPool: false };
}

/** passt's vhost-user NIC reads guest memory directly: it must be a shared memfd. */
export function usesPasst(vmi: VirtualMachineInstance): boolean {
  return (vmi.spec.domain.devices.interfaces ?? []).some((i) => i.passtBinding !== undefined || i.passt !== undefined);
}

/** Guest memory must be a memfd for hugepages (unless opted out), virtiofs and passt. */
export function memfdRequired(vmi: VirtualMachineInstance, arch: ArchFacts): boolean {
  if (!arch.memfdSupported) return false;
  const domain = vmi.spec.domain;
  const hugepages = domain.memory?.hugepages !== undefined && vmi.metadata.annotations?.[MEMFD_ANNOTATION] !== 'false';
  const virtiofs = (domain.devices.filesystems ?? []).some((f) => f.virtiofs);
  const passt = usesPasst(vmi);
  return hugepages || virtiofs || passt;
}
