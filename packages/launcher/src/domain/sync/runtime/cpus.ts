// SyncVirtualMachineCPUs (issue 20): the running guest's vCPU count follows spec.domain.cpu.sockets, within the
// hot-plug slots the converter left (maxSockets), as KubeVirt's UpdateVCPUs does with virDomainSetVcpusFlags.
import { log } from '../../../log.js';
import { RuntimeSyncError, type RuntimeDomain } from './types.js';

interface CpuSpec {
  sockets?: number;
  cores?: number;
  threads?: number;
  maxSockets?: number;
}

export interface CpuPlan {
  /** The vCPU count the VMI asks for. */
  requested: number;
  /** The ceiling the domain was defined with. */
  maximum: number;
  /** The count the guest runs with now. */
  current: number;
}

/** Pure: the requested count, checked against the domain's ceiling; `liveXml` is the running domain's XML. */
export function planCpus(cpu: CpuSpec | undefined, liveXml: string): CpuPlan {
  const vcpu = /<vcpu\b([^>]*)>(\d+)<\/vcpu>/.exec(liveXml);
  const maximum = Number(vcpu?.[2] ?? 1);
  const current = Number(/\scurrent=["'](\d+)["']/.exec(vcpu?.[1] ?? '')?.[1] ?? maximum);
  const perSocket = (cpu?.cores || 1) * (cpu?.threads || 1);
  const sockets = cpu?.sockets || 1;
  if (!Number.isInteger(sockets) || sockets < 1) {
    throw new RuntimeSyncError('spec.domain.cpu.sockets', String(cpu?.sockets), 'must be a whole number >= 1');
  }
  const requested = sockets * perSocket;
  if (requested > maximum) {
    throw new RuntimeSyncError(
      'spec.domain.cpu.sockets',
      String(sockets),
      `asks for ${requested} vCPUs, more than the ${maximum} the domain has slots for (maxSockets)`,
    );
  }
  return { requested, maximum, current };
}

/** Returns the new count, or undefined when the guest already runs with it. */
export async function syncCpus(dom: RuntimeDomain, cpu: CpuSpec | undefined): Promise<number | undefined> {
  const plan = planCpus(cpu, await dom.getXMLDesc());
  if (plan.requested === plan.current) return undefined;
  try {
    await dom.setVcpus(plan.requested, { live: true, config: true });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new RuntimeSyncError(
      'spec.domain.cpu.sockets',
      String(cpu?.sockets ?? 1),
      `failed to update vCPUs: ${reason}`,
      {
        cause: err,
      },
    );
  }
  log.info(`Updated vCPUs from ${plan.current} to ${plan.requested}`);
  return plan.requested;
}
