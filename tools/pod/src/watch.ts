// `virt-pod run --watch`: plays virt-handler for changes of the VMI file while the guest runs. On each change it
// prepares what the node side owns (hotplug volumes, taps: hotplug.ts), then calls SyncVirtualMachine, and
// SyncVirtualMachineCPUs / SyncVirtualMachineMemory when the CPU sockets or guest memory changed. One line per
// change says what was done or why it failed; a failure does not end the pod.
import fs from 'node:fs';
import { parseVmi, type VirtualMachineInstance } from '@virt-launcher/converter';
import { handlerSyncRequest } from './handler-options.js';
import type { PodNetwork } from './namespaces.js';
import { POD_UID } from './non-root.js';
import { prepareHotplugVolumes, prepareSecondaryTaps, removeUnpluggedVolumes } from './hotplug.js';
import type { PodSpec } from './run-phases.js';
import type { RunState } from './run-state.js';

const POLL_MS = 500;

const cpuKey = (v: VirtualMachineInstance) => JSON.stringify(v.spec?.domain?.cpu?.sockets ?? null);
const memoryKey = (v: VirtualMachineInstance) => JSON.stringify(v.spec?.domain?.memory?.guest ?? null);

/** Applies one change of the VMI file; returns the VMI now in effect (the old one when reading failed). */
async function applyChange(
  s: RunState,
  spec: PodSpec,
  net: PodNetwork,
  before: VirtualMachineInstance,
): Promise<VirtualMachineInstance> {
  let next: VirtualMachineInstance;
  try {
    next = parseVmi(fs.readFileSync(s.args.vmiFile, 'utf8'));
  } catch (err) {
    s.print(`watch: ${s.args.vmiFile} not applied: ${(err as Error).message}`);
    return before;
  }
  // The identity of the pod's VMI never changes with an edit of the file.
  next.metadata = { ...next.metadata, name: spec.name, namespace: spec.namespace, uid: spec.uid };
  const owner = s.args.nonRoot ? POD_UID : undefined;
  const launcher = s.launcher!;
  try {
    const withStatus = prepareHotplugVolumes(next, spec.layout, s.args.volumes, owner);
    for (const tap of prepareSecondaryTaps(next, net.podNs, owner)) s.print(`watch: tap ${tap} made in the pod`);
    const res = await launcher.call('syncVirtualMachine', handlerSyncRequest(withStatus), 120_000);
    if (!res.success) {
      // No API server admits the file: the launcher's Sync validation is the check (interface states KubeVirt's
      // admission refuses, for one). A refused edit changes nothing in the guest, and the watch keeps the previous
      // spec as the one in effect, so the next edit is compared with what really runs.
      s.print(`watch: edit refused, the guest keeps its previous spec: SyncVirtualMachine failed: ${res.message}`);
      return before;
    }
    s.print('watch: SyncVirtualMachine ok');
    for (const f of removeUnpluggedVolumes(next, spec.layout)) s.print(`watch: hotplug file ${f} removed`);
    if (cpuKey(next) !== cpuKey(before)) {
      const r = await launcher.call('syncVirtualMachineCpUs', handlerSyncRequest(withStatus), 60_000);
      s.print(`watch: SyncVirtualMachineCPUs ${r.success ? 'ok' : `failed: ${r.message}`}`);
    }
    if (memoryKey(next) !== memoryKey(before)) {
      const r = await launcher.call('syncVirtualMachineMemory', handlerSyncRequest(withStatus), 60_000);
      s.print(`watch: SyncVirtualMachineMemory ${r.success ? 'ok' : `failed: ${r.message}`}`);
    }
  } catch (err) {
    s.print(`watch: change not applied: ${(err as Error).message}`);
    return before;
  }
  return next;
}

/** What tells one version of the VMI file from another (its modification time, size and inode). */
export function vmiFileStamp(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.mtimeMs}/${st.size}/${st.ino}` : 'gone';
}

/**
 * Starts watching; the watcher stops with the pod (cleanup stack). Changes are applied one at a time. The baseline
 * is the stamp taken before the VMI was first read (`spec.vmiFileStamp`): an edit made at any time after that read,
 * while the guest was still booting too, is applied, never taken for the baseline.
 */
export function watchVmiFile(s: RunState, spec: PodSpec, net: PodNetwork): void {
  let current = spec.vmi;
  let queue = Promise.resolve();
  let last = spec.vmiFileStamp ?? vmiFileStamp(s.args.vmiFile);
  const poll = setInterval(() => {
    const now = vmiFileStamp(s.args.vmiFile);
    if (now === last) return;
    last = now;
    queue = queue.then(async () => {
      s.print(`watch: ${s.args.vmiFile} changed`);
      current = await applyChange(s, spec, net, current);
    });
  }, POLL_MS);
  s.cleanup.push('watch VMI file', async () => {
    clearInterval(poll);
    await queue;
  });
  s.print(`watch: applying changes of ${s.args.vmiFile} (virt-handler's part: hotplug volumes, taps, Sync)`);
}
