// The target pod of `virt-pod run --migrate`: a second pod as virt-controller would create it (own network
// namespaces, run root, libvirt daemon), brought up by the same phases as the source, then prepared with
// SyncMigrationTarget instead of SyncVirtualMachine. It runs with its own RunState, tied to the source's Ctrl-C.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { handlerSyncRequest } from './handler-options.js';
import type { HypervisorDecision } from './hypervisor.js';
import { podLayout } from './layout.js';
import { createPodNetwork, type PodNetwork } from './namespaces.js';
import type { PodProcess } from './pod-process.js';
import { StartFailedError } from './run-errors.js';
import {
  connectToLauncher,
  preparePodFiles,
  setUpMasquerade,
  startHandler,
  startPod,
  type PodSpec,
} from './run-phases.js';
import { RunState } from './run-state.js';

export interface TargetPod {
  state: RunState;
  spec: PodSpec;
  net: PodNetwork;
  pod: PodProcess;
}

export async function startTargetPod(
  s: RunState,
  source: PodSpec,
  vmi: VirtualMachineInstance,
  hypervisor: HypervisorDecision,
): Promise<TargetPod> {
  const t = new RunState(s.args, s.repo, (line) => s.print(`[target] ${line}`));
  s.abort.signal.addEventListener('abort', () => t.abort.abort());
  s.cleanup.push('target pod', () => t.runCleanup());
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), `virt-pod-${source.name}-target-`));
  t.cleanup.push('target run-root', () =>
    s.args.keep ? s.print(`kept ${runRoot}`) : fs.rmSync(runRoot, { recursive: true, force: true }),
  );
  const spec: PodSpec = { ...source, vmi, runRoot, layout: podLayout(runRoot) };
  s.print(`target pod run-root ${runRoot}`);
  const id = randomBytes(3).toString('hex');
  const net = await t.phase('target pod network (namespaces, veth to the node)', () =>
    createPodNetwork(
      id,
      t.cleanup,
      [`${spec.namespace}.svc.cluster.local`, 'svc.cluster.local', 'cluster.local'],
      t.args.podIpFamily,
    ),
  );
  t.print(`  network namespaces ${net.podNs} ${net.nodeNs}`);
  // The same netsetup as the source: the guest keeps its MAC and address, and its lease stays valid here.
  await setUpMasquerade(t, spec, net);
  await preparePodFiles(t, spec);
  await startHandler(t, spec);
  const started = performance.now();
  const pod = startPod(t, spec, net, hypervisor);
  await connectToLauncher(t, spec, pod, started);
  const res = await t.interruptible(
    'SyncMigrationTarget',
    t.launcher!.call('syncMigrationTarget', handlerSyncRequest(vmi), 60_000),
  );
  if (!res.success) throw new StartFailedError(`SyncMigrationTarget: ${res.message}`);
  t.clock.mark('target pod ready (SyncMigrationTarget)', started);
  return { state: t, spec, net, pod };
}
