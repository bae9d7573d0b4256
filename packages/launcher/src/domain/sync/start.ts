// Step 5 of SyncVMI: start a domain that is down (docs/behaviour.md#syncvirtualmachine, step 5), paused when the VMI asks for
// it. A running domain is left alone: a re-sync changes nothing.
import type { Domain } from '../../adapters/libvirt.js';
import { log } from '../../log.js';
import type { VmiView } from '../../vmi.js';
import { isDown, STATE } from '../state.js';

const finalPhases = new Set(['Running', 'Failed', 'Succeeded']);

export async function startIfDown(dom: Domain, vmi: VmiView, pausedByUser: Set<string>): Promise<void> {
  const vlog = log.with({ name: vmi.name, namespace: vmi.namespace, uid: vmi.uid, kind: 'VirtualMachineInstance' });
  const { stateCode: state } = await dom.getState();
  if (isDown(state) && !finalPhases.has(vmi.phase)) {
    const paused = vmi.startStrategy === 'Paused';
    await dom.create({ paused });
    vlog.info('Domain started.');
    if (paused) pausedByUser.add(vmi.uid);
    return;
  }
  if (state === STATE.paused && !pausedByUser.has(vmi.uid)) {
    await dom.resume();
    vlog.info('Domain unpaused.');
  }
}
