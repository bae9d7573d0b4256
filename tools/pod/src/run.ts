// `virt-pod run`: plays kubelet + virt-handler for one VMI on this machine, as a pipeline of named phases
// (run-phases.ts up to SyncVirtualMachine, run-guest.ts once the guest runs; run-state.ts is what they share).
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseVmi, type VirtualMachineInstance } from '@virt-launcher/converter';
import type { RunArgs } from './args.js';
import { decideHypervisor, probeKvm, type HypervisorDecision } from './hypervisor.js';
import { podLayout } from './layout.js';
import { createPodNetwork, type PodNetwork } from './namespaces.js';
import { addSecondaryInterfaces, podNetworkBridged, setUpBridges } from './pod-networks.js';
import type { PodProcess } from './pod-process.js';
import { InterruptedError, StartFailedError } from './run-errors.js';
import { awaitLease, checkMasquerade, holdUntilInterrupted, isLease } from './run-guest.js';
import {
  connectToLauncher,
  preparePodFiles,
  setUpMasquerade,
  startHandler,
  startPod,
  startProbe,
  syncVirtualMachine,
  type PodSpec,
} from './run-phases.js';
import { runMigration } from './run-migrate.js';
import { RunState } from './run-state.js';
import { vmiFileStamp as fileStampOf, watchVmiFile } from './watch.js';
import { reportGuestAgent } from './guest-agent-report.js';

export interface RunOutcome {
  leased: boolean;
  exitCode: number;
  /** With --migrate: whether the guest migrated and ran on in the target pod. */
  migrated?: boolean;
}

export { InterruptedError, StartFailedError };

function readVmi(file: string): VirtualMachineInstance {
  const text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  const vmi = parseVmi(text);
  vmi.metadata.uid ||= randomUUID();
  vmi.metadata.namespace ||= 'default';
  return vmi;
}

/** Reads the VMI and makes the pod's run root (removed at the end unless --keep). */
async function podSpec(s: RunState): Promise<PodSpec> {
  // Stamped before the read: an edit made after it is one --watch applies (watch.ts).
  const vmiFileStamp = s.args.vmiFile === '-' ? undefined : fileStampOf(s.args.vmiFile);
  const vmi = await s.phase('read VMI', async () => readVmi(s.args.vmiFile));
  const { name, namespace, uid } = vmi.metadata as { name: string; namespace: string; uid: string };
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), `virt-pod-${name}-`));
  s.cleanup.push('run-root', () =>
    s.args.keep ? s.print(`kept ${runRoot}`) : fs.rmSync(runRoot, { recursive: true, force: true }),
  );
  s.print(`pod ${namespace}/${name} uid ${uid}, run-root ${runRoot}`);
  const grace = vmi.spec?.terminationGracePeriodSeconds ?? 30;
  return { vmi, name, namespace, uid, grace, runRoot, layout: podLayout(runRoot), vmiFileStamp };
}

async function chooseHypervisor(s: RunState, spec: PodSpec): Promise<HypervisorDecision> {
  const hypervisor = await s.phase(`hypervisor (--hypervisor ${s.args.hypervisor})`, () =>
    decideHypervisor(s.args.hypervisor, spec.vmi.spec?.domain?.cpu?.model, (device, cpu) =>
      probeKvm(s.repo, spec.runRoot, device, cpu, 'kvm', s.abort.signal),
    ),
  );
  s.print(hypervisor.line);
  return hypervisor;
}

async function podNetwork(s: RunState, spec: PodSpec): Promise<PodNetwork> {
  const id = randomBytes(3).toString('hex');
  const net = await s.phase('pod network (namespaces, veth to the node)', () =>
    createPodNetwork(
      id,
      s.cleanup,
      [`${spec.namespace}.svc.cluster.local`, 'svc.cluster.local', 'cluster.local'],
      s.args.podIpFamily,
    ),
  );
  s.print(`  network namespaces ${net.podNs} ${net.nodeNs}`);
  return net;
}

/** Ends the pod (cleanup stack, newest first) and reports its exit code with every phase's duration. */
async function shutDown(s: RunState, pod: PodProcess): Promise<number> {
  const stopStart = performance.now();
  await s.runCleanup();
  s.clock.mark('graceful shutdown and cleanup', stopStart);
  const exitCode = await pod.exited;
  s.print(`pod exited with ${exitCode}\nphases:\n${s.clock.summary()}`);
  return exitCode;
}

export async function runPod(args: RunArgs, repo: string, print: (line: string) => void): Promise<RunOutcome> {
  const s = new RunState(args, repo, print);
  process.on('SIGINT', s.onSignal);
  process.on('SIGTERM', s.onSignal);
  try {
    const spec = await podSpec(s);
    const hypervisor = await chooseHypervisor(s, spec);
    const net = await podNetwork(s, spec);
    // Multus' extra interfaces, then virt-handler's phase 1: bridge binding where asked, masquerade on the pod
    // network unless its NIC is bridge-bound.
    await addSecondaryInterfaces(s, spec, net);
    await setUpBridges(s, spec, net);
    // Masquerade needs the pod's network namespace, not its process: it runs while the pod's volumes are made and
    // the pod starts (KubeVirt's virt-handler runs it once the launcher is ready), and is done before the Sync.
    const masquerade = podNetworkBridged(spec.vmi) ? undefined : setUpMasquerade(s, spec, net);
    masquerade?.catch(() => undefined); // awaited below; a failure must not count as unhandled meanwhile
    await preparePodFiles(s, spec);
    const probe = await startProbe(s, spec, net);
    await startHandler(s, spec);
    const started = performance.now();
    const pod = startPod(s, spec, net, hypervisor);
    await Promise.all([masquerade, connectToLauncher(s, spec, pod, started)]);
    // Other tools (launcherctl) reach the launcher here, as virt-handler does.
    s.print(`launcher socket: ${spec.layout.hostPath('/var/run/kubevirt/sockets/launcher-sock')}`);
    await syncVirtualMachine(s, spec);
    const first = await awaitLease(s, spec, pod, net);
    const leased = isLease(first);
    if (leased) await checkMasquerade(s, probe, net);
    if (s.args.migration && leased) {
      const { migrated } = await runMigration(s, spec, hypervisor, pod);
      return { leased, migrated, exitCode: await shutDown(s, pod) };
    }
    if (leased && !s.args.untilLease) void reportGuestAgent(s); // OS and IPs from the guest agent
    if (s.args.watch && leased) watchVmiFile(s, spec, net);
    await holdUntilInterrupted(s, pod, first);
    return { leased, exitCode: await shutDown(s, pod) };
  } finally {
    await s.runCleanup();
    process.off('SIGINT', s.onSignal);
    process.off('SIGTERM', s.onSignal);
  }
}
