// The runtime step of SyncVMI (issue 20): when the domain already runs, bring it to what the VMI asks for now.
// The converter's domain XML for the current VMI is the desired state (so a hotplugged disk or NIC gets exactly
// the bus, target and `ua-` alias a fresh define would give it); libvirt's live XML is the actual state. Disks
// first, then interfaces, as KubeVirt's SyncVMI does. A domain that is not active is left to the start step.
import type { Domain } from '../../../adapters/libvirt.js';
import { STATE } from '../../state.js';
import type { VmiView } from '../../../vmi.js';
import type { SyncEnv } from '../env.js';
import { underRoot } from '../storage/spec.js';
import { syncDisks, type DiskChanges } from './disks.js';
import { syncInterfaces, type InterfaceChanges } from './interfaces.js';
import { asRuntimeDomain, type RuntimeEnv } from './types.js';

/** How long a detach waits for the guest to release the device (KubeVirt waits 30 s for host devices). */
export const DETACH_TIMEOUT_MS = 30_000;

export function runtimeEnv(env: SyncEnv): RuntimeEnv {
  return {
    conn: env.conn,
    // The flag's default ends in '/': the prefix test below needs the bare directory.
    hotplugDir: env.paths.hotplugDiskDir.replace(/\/+$/, ''),
    local: (path) => underRoot(env, path),
    detachTimeoutMs: DETACH_TIMEOUT_MS,
  };
}

/** Names of the VMI's interfaces marked `state: absent` (to be unplugged). */
export function absentInterfaces(vmi: VmiView): Set<string> {
  const doc = JSON.parse(vmi.raw.toString('utf8')) as {
    spec?: { domain?: { devices?: { interfaces?: Array<{ name?: string; state?: string }> } } };
  };
  const ifaces = doc.spec?.domain?.devices?.interfaces ?? [];
  return new Set(ifaces.filter((i) => i.state === 'absent' && i.name).map((i) => i.name as string));
}

export interface RuntimeChanges {
  disks: DiskChanges;
  interfaces: InterfaceChanges;
}

export async function reconcileRunning(
  env: SyncEnv,
  domain: Domain,
  vmi: VmiView,
  desiredXml: string,
): Promise<RuntimeChanges | undefined> {
  const { stateCode } = await domain.getState();
  if (stateCode !== STATE.running && stateCode !== STATE.paused && stateCode !== STATE.blocked) return undefined;
  const dom = asRuntimeDomain(domain);
  const disks = await syncDisks(runtimeEnv(env), dom, desiredXml, await dom.getXMLDesc());
  const interfaces = await syncInterfaces(dom, desiredXml, await dom.getXMLDesc(), absentInterfaces(vmi));
  return { disks, interfaces };
}
