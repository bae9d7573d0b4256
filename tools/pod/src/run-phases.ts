// The phases of `virt-pod run` before the guest boots, in the order kubelet and virt-handler play them: pod
// network, masquerade, pod files, node probe, handler stand-in, pod process, launcher socket, SyncVirtualMachine.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import { connectLauncher, LauncherConnectError, type LauncherClient } from '@virt-launcher/launcher';
import {
  applyPlan,
  discoverPodInterface,
  MasqueradeRequest,
  masqueradeRequestFor,
  planMasquerade,
  type MasqueradePlan,
  type VmiLike,
} from '@virt-launcher/netsetup';
import { handlerSyncRequest, masqueradeInterface } from './handler-options.js';
import { HandlerDecisions, startHandlerStandIn, type DomainEventSummary } from './handler-standin.js';
import type { PodLayout } from './layout.js';
import { placeContainerDisks } from './layout.js';
import type { PodNetwork } from './namespaces.js';
import { startNodeProbe, type NodeProbe } from './node-probe.js';
import { isMilestone, startPodProcess, type PodProcess } from './pod-process.js';
import { handPodDirsToUser, POD_UID } from './non-root.js';
import { InterruptedError, StartFailedError } from './run-errors.js';
import type { RunState } from './run-state.js';
import type { HypervisorDecision } from './hypervisor.js';

const PROBE_PORT = 8080;

/** The VMI's identity and the facts every later phase reads. */
export interface PodSpec {
  vmi: VirtualMachineInstance;
  name: string;
  namespace: string;
  uid: string;
  grace: number;
  runRoot: string;
  layout: PodLayout;
  /** The VMI file's stamp taken before it was read (watch.ts: the baseline of --watch). */
  vmiFileStamp?: string;
}

/**
 * virt-handler's network phase 1 for masquerade (pkg/network/setup/netpod): netsetup plans and applies bridge, tap
 * and nftables in the pod namespace. It leaves no file for the launcher: the guest's DHCP configuration is the
 * launcher's own phase 2 (pkg/network/dhcp/masquerade.go), from the pod's links and resolv.conf.
 */
export async function setUpMasquerade(s: RunState, spec: PodSpec, net: PodNetwork) {
  const { vmi } = spec;
  const masq = masqueradeInterface(vmi);
  const plan = await s.phase('masquerade (netsetup: bridge, tap, nftables)', async () => {
    const facts = await discoverPodInterface(net.podNs, net.podIface);
    // virt-handler makes the tap of a non-root pod owned by its user: QEMU (uid 107) opens it.
    const owner = s.args.nonRoot ? { tapUid: POD_UID, tapGid: POD_UID } : { tapUid: 0, tapGid: 0 };
    // A masquerade NIC on the pod network: what the VMI asks for (CIDRs, ports, istio, IPv6 when
    // the pod has it), decided as virt-handler does.
    const onPod = masq && vmi.spec?.networks?.some((n) => n.name === masq.name && n.pod);
    const request = onPod
      ? masqueradeRequestFor(vmi as VmiLike, masq.name, facts, owner)
      : MasqueradeRequest.fromPartial({ pod: facts, ...owner });
    const p = planMasquerade(request);
    await applyPlan(p, net.podNs);
    return p;
  });
  s.print(
    `  bridge ${plan.bridge?.name} ${plan.bridge?.addresses.join(' ')}, tap ${plan.tap?.name}, guest ${guestAddresses(plan)}`,
  );
  return plan;
}

/** The guest's address of each family the plan sets up, as `ip/prefix`. */
function guestAddresses(plan: MasqueradePlan): string {
  return [plan.ipv4, plan.ipv6].flatMap((g) => (g ? [`${g.guestIp}/${g.prefixLength}`] : [])).join(' ');
}

/** kubelet's part: the pod's volumes (its directories and the container disks). */
export async function preparePodFiles(s: RunState, spec: PodSpec): Promise<void> {
  const { layout, vmi } = spec;
  await s.phase('pod directories and container disks', async () => {
    fs.mkdirSync(layout.hostPath('/var/run/kubevirt/sockets'), { recursive: true });
    fs.mkdirSync(layout.hostPath('/var/run/kubevirt-private'), { recursive: true });
    for (const line of placeContainerDisks(layout, vmi, s.args.containerDisks, s.args.kernelBootDir))
      s.print(`  ${line}`);
  });
}

/** The demo guest reads vlt.probe=IP:PORT from its kernel command line and connects to the node through NAT. */
export async function startProbe(s: RunState, spec: PodSpec, net: PodNetwork): Promise<NodeProbe> {
  const kb = spec.vmi.spec?.domain?.firmware?.kernelBoot;
  const probes = [
    net.nodeIp && `vlt.probe=${net.nodeIp}:${PROBE_PORT}`,
    net.nodeIp6 && `vlt.probe6=${net.nodeIp6},${PROBE_PORT}`,
  ].filter((a) => !!a);
  if (kb) kb.kernelArgs = [kb.kernelArgs ?? '', ...probes].join(' ').trim();
  const probe = await startNodeProbe(net.nodeNs, net.nodeIp6 ? '::' : net.nodeIp, PROBE_PORT);
  s.cleanup.push('node probe', () => probe.stop());
  return probe;
}

/** virt-handler's answers: Shutdown/Kill for the graceful mark, phase + Delete for a domain that is off. */
export async function startHandler(s: RunState, spec: PodSpec): Promise<void> {
  const { vmi, grace, layout } = spec;
  const decisions = new HandlerDecisions(grace, vmi.spec?.domain?.features?.acpi?.enabled !== false);
  let disksSeen = '';
  const handler = await startHandlerStandIn(
    layout.hostPath('/var/run/kubevirt/domain-notify-pipe.sock'),
    (e: DomainEventSummary) => {
      s.domainStatus = e.status;
      // What virt-handler learns of the domain's disks, the moment an event brings a change (hotplug, unplug).
      const disks = e.disks.join(',');
      if (e.status && disks !== disksSeen) {
        disksSeen = disks;
        s.print(`  handler sees disks: ${disks || 'none'}`);
      }
      s.print(
        `  domain event ${e.eventType}: ${e.status || '-'}${e.reason ? ` (${e.reason})` : ''}${e.markedForGracefulShutdown ? ', marked for graceful shutdown' : ''}`,
      );
      const launcher = s.launcher;
      const { action, phase } = launcher ? decisions.next(e) : {};
      if (phase && action === 'delete') s.print(`  VMI phase: ${phase}`);
      const rpc = action && (`${action}VirtualMachine` as const);
      if (rpc && launcher) {
        const label = rpc.charAt(0).toUpperCase() + rpc.slice(1);
        void launcher
          .call(rpc, { vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) }, options: undefined })
          .then((r) => s.print(`  ${label}: ${r.success ? 'ok' : r.message}`))
          .catch((err: Error) => s.print(`  ${label} failed: ${err.message}`));
      }
    },
  );
  s.cleanup.push('handler stand-in', () => handler.close());
}

/** Stops the pod as kubelet would, after virt-handler's Delete when the VMI failed or its domain is off. */
async function stopPod(s: RunState, spec: PodSpec, pod: PodProcess): Promise<void> {
  if (pod.child.exitCode !== null) return;
  const launcher = s.launcher;
  // virt-handler deletes the domain of a VMI that failed or whose domain is off; the launcher's last event then
  // says "deleted" and it exits at once instead of waiting out its final-notify timeouts (15 s + 30 s).
  if (launcher && (s.syncFailed || s.domainStatus === 'Shutoff')) {
    const vmiJson = Buffer.from(JSON.stringify(spec.vmi));
    await launcher
      .call('deleteVirtualMachine', { vmi: { vmiJson }, options: undefined }, 10_000)
      .catch(() => undefined);
  }
  await pod.terminate();
  // Without a guest there is nothing to power off: a pod that ignores SIGTERM then is not worth the grace period.
  const waitS = launcher && !s.syncFailed ? spec.grace + 20 : 10;
  const done = await Promise.race([pod.exited.then(() => true), sleep(waitS * 1000).then(() => false)]);
  if (!done) {
    s.print(`pod did not stop within ${waitS} s: killing it`);
    pod.kill();
    await pod.exited;
  }
  // Closed only now: while the pod stops, the handler stand-in still sends ShutdownVirtualMachine through it.
  s.launcher?.close();
}

export function startPod(s: RunState, spec: PodSpec, net: PodNetwork, hypervisor: HypervisorDecision): PodProcess {
  const { vmi, name, namespace, uid, grace, runRoot } = spec;
  // The pod's volumes belong to its user; the handler stand-in's notify socket exists by now and is handed over too.
  if (s.args.nonRoot) handPodDirsToUser(runRoot);
  const pod = startPodProcess({
    repo: s.repo,
    podNs: net.podNs,
    runRoot,
    hostname: vmi.spec?.hostname ?? name,
    name,
    namespace,
    uid,
    gracePeriodSeconds: grace,
    kvm: hypervisor.kvm,
    allowEmulation: hypervisor.allowEmulation,
    nonRoot: s.args.nonRoot,
    logFile: path.join(runRoot, 'pod.log'),
    onLogLine: (line) => (s.args.verbose || isMilestone(line)) && s.print(`  [pod] ${compactLog(line)}`),
  });
  s.pod = pod;
  s.cleanup.push('pod process', () => stopPod(s, spec, pod));
  return pod;
}

async function waitForFile(file: string, exited: Promise<number>, timeoutMs: number, signal: AbortSignal) {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!fs.existsSync(file)) {
    if (signal.aborted) throw new InterruptedError('interrupted before the launcher was ready');
    if (gone) throw new Error(`the pod exited before ${path.basename(file)} appeared (see its log)`);
    if (Date.now() > deadline) throw new Error(`${file} did not appear within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** Waits for launcher-sock (the launcher is ready) and connects to it. */
export async function connectToLauncher(s: RunState, spec: PodSpec, pod: PodProcess, started: number): Promise<void> {
  const sock = spec.layout.hostPath('/var/run/kubevirt/sockets/launcher-sock');
  await waitForFile(sock, pod.exited, 60_000, s.abort.signal);
  s.clock.mark('launcher ready (launcher-sock)', started);
  s.launcher = await s.interruptible('connecting to the launcher', connectWithRetry(sock, pod.exited));
}

/**
 * A launcher that has just marked itself ready may not answer within a call's deadline on a loaded node; like
 * virt-handler, which polls an unresponsive launcher again, this tries a few times before giving up.
 */
async function connectWithRetry(sock: string, exited: Promise<number>, attempts = 3): Promise<LauncherClient> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let attempt = 1; ; attempt++) {
    try {
      return await connectLauncher(sock);
    } catch (err) {
      if (!(err instanceof LauncherConnectError) || attempt >= attempts || gone) throw err;
    }
  }
}

/** virt-handler's SyncVirtualMachine with the options it sends for this VMI; a refusal ends the run. */
export async function syncVirtualMachine(s: RunState, spec: PodSpec): Promise<void> {
  const launcher = s.launcher!;
  const syncStart = performance.now();
  const sync = launcher.call('syncVirtualMachine', handlerSyncRequest(spec.vmi), 60_000);
  const res = await s.interruptible('SyncVirtualMachine', sync);
  if (!res.success) {
    s.syncFailed = true;
    throw new StartFailedError(res.message);
  }
  s.clock.mark('SyncVirtualMachine (define, prepare storage, start)', syncStart);
}

function compactLog(line: string): string {
  try {
    const e = JSON.parse(line) as Record<string, unknown>;
    const { component, level, msg, pos: _pos, timestamp: _ts, ...rest } = e;
    const extra = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    return `${String(component ?? '')} ${String(level ?? '')}: ${String(msg ?? '')}${extra.length ? ` (${extra.join(', ')})` : ''}`;
  } catch {
    return line;
  }
}
