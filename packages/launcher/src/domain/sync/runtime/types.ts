// What the runtime reconcile needs of a domain and of the launcher around it, and its one error type.
import type * as Libvirt from '@virt-launcher/libvirt';
import type { Connection, Domain } from '../../../adapters/libvirt.js';

/** The launcher's domain view plus the calls that change a running guest. */
export type RuntimeDomain = Domain &
  Pick<Libvirt.Domain, 'attachDevice' | 'detachDevice' | 'updateDevice' | 'blockResize' | 'setVcpus' | 'getStats'>;

const RUNTIME_METHODS = ['attachDevice', 'detachDevice', 'updateDevice', 'blockResize', 'setVcpus', 'getStats'];

/** The binding's Domain has every runtime call; a narrower stand-in (an old fake) is refused by name. */
export function asRuntimeDomain(dom: Domain): RuntimeDomain {
  const missing = RUNTIME_METHODS.filter((m) => typeof (dom as unknown as Record<string, unknown>)[m] !== 'function');
  if (missing.length > 0) {
    throw new RuntimeSyncError(
      'domain',
      dom.name,
      `the domain handle cannot change a running guest (no ${missing.join(', ')})`,
    );
  }
  return dom as RuntimeDomain;
}

export interface RuntimeEnv {
  conn: () => Pick<Connection, 'on' | 'off'>;
  /** The hotplug directory as the domain XML names it (KubeVirt's /var/run/kubevirt/hotplug-disks). */
  hotplugDir: string;
  /** A path the domain XML names, as this launcher reaches it. */
  local: (path: string) => string;
  /** How long a detach may wait for the guest to release the device. */
  detachTimeoutMs: number;
}

/** A runtime change the launcher refuses or libvirt failed: names the VMI field (or device) and its value. */
export class RuntimeSyncError extends Error {
  constructor(
    readonly field: string,
    readonly value: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${field} ${JSON.stringify(value)}: ${message}`, options);
    this.name = 'RuntimeSyncError';
  }
}
