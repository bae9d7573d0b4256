// `virt-pod run`: plays kubelet + virt-handler for one VMI on this machine, as a pipeline of named phases.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { parseVmi, type VirtualMachineInstance } from '@virt-launcher/converter';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import { connectLauncher, type LauncherClient } from '@virt-launcher/launcher';
import { applyPlan, discoverPodInterface, MasqueradeRequest, planMasquerade } from '@virt-launcher/netsetup';
import type { RunArgs } from './args.js';
import { CleanupStack } from './cleanup.js';
import { HandlerDecisions, startHandlerStandIn, type DomainEventSummary } from './handler-standin.js';
import { decideHypervisor, probeKvm } from './hypervisor.js';
import { placeContainerDisks, podLayout } from './layout.js';
import { createPodNetwork } from './namespaces.js';
import { startNodeProbe } from './node-probe.js';
import { PhaseClock } from './phases.js';
import { isMilestone, startPodProcess, type PodProcess } from './pod-process.js';
import { watchSerialConsole } from './serial-console.js';

export interface RunOutcome {
  leased: boolean;
  exitCode: number;
}

/** A Ctrl-C (or SIGTERM) before the guest ran: everything made so far was undone. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
}

/** SyncVirtualMachine answered success:false: the launcher's reason, printed once. */
export class StartFailedError extends Error {
  override name = 'StartFailedError';
}

const PROBE_PORT = 8080;

function readVmi(file: string): VirtualMachineInstance {
  const text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  const vmi = parseVmi(text);
  vmi.metadata.uid ||= randomUUID();
  vmi.metadata.namespace ||= 'default';
  return vmi;
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

export async function runPod(args: RunArgs, repo: string, print: (line: string) => void): Promise<RunOutcome> {
  const clock = new PhaseClock(print);
  const cleanup = new CleanupStack();
  const abort = new AbortController();
  let pod: PodProcess | undefined;
  let launcher: LauncherClient | undefined;
  let leased = false;
  const onSigint = () => {
    if (!abort.signal.aborted) print('interrupted: shutting the pod down');
    abort.abort();
  };
  const aborted = new Promise<'aborted'>((r) => abort.signal.addEventListener('abort', () => r('aborted')));
  // Each phase ends early on Ctrl-C: what it made is already on the cleanup stack.
  const interruptible = async <T>(phase: string, work: Promise<T>): Promise<T> => {
    const first = await Promise.race([work.then((value) => ({ value })), aborted]);
    if (first === 'aborted') throw new InterruptedError(`interrupted during ${phase}`);
    return first.value;
  };
  const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    if (abort.signal.aborted) throw new InterruptedError(`interrupted before ${name}`);
    return interruptible(name, clock.run(name, work));
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  try {
    const vmi = await phase('read VMI', async () => readVmi(args.vmiFile));
    const { name, namespace, uid } = vmi.metadata as { name: string; namespace: string; uid: string };
    const grace = vmi.spec?.terminationGracePeriodSeconds ?? 30;
    const id = randomBytes(3).toString('hex');
    const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), `virt-pod-${name}-`));
    cleanup.push('run-root', () =>
      args.keep ? print(`kept ${runRoot}`) : fs.rmSync(runRoot, { recursive: true, force: true }),
    );
    const layout = podLayout(runRoot);
    print(`pod ${namespace}/${name} uid ${uid}, run-root ${runRoot}`);

    const hypervisor = await phase(`hypervisor (--hypervisor ${args.hypervisor})`, () =>
      decideHypervisor(args.hypervisor, vmi.spec?.domain?.cpu?.model, (device, cpu) =>
        probeKvm(repo, runRoot, device, cpu, 'kvm', abort.signal),
      ),
    );
    print(hypervisor.line);

    const net = await phase('pod network (namespaces, veth to the node)', () =>
      createPodNetwork(id, cleanup, [`${namespace}.svc.cluster.local`, 'svc.cluster.local', 'cluster.local']),
    );
    const masq = vmi.spec?.domain?.devices?.interfaces?.find((i) => i.masquerade);
    const plan = await phase('masquerade (netsetup: bridge, tap, nftables)', async () => {
      const facts = await discoverPodInterface(net.podNs, net.podIface, {
        resolvConfPath: `/etc/netns/${net.podNs}/resolv.conf`,
        hostname: vmi.spec?.hostname ?? name,
      });
      const p = planMasquerade(
        MasqueradeRequest.fromPartial({
          pod: facts,
          ports: (masq?.ports ?? []).map((port) => ({
            port: port.port,
            protocol: (port.protocol ?? 'TCP').toLowerCase(),
          })),
          subdomain: vmi.spec?.subdomain ?? '',
        }),
      );
      await applyPlan(p, net.podNs);
      return p;
    });
    print(
      `  bridge ${plan.bridge?.name} ${plan.bridge?.addresses.join(' ')}, tap ${plan.tap?.name}, guest ${plan.dhcp?.v4?.clientIpCidr}`,
    );

    await phase('pod directories and container disks', async () => {
      const priv = layout.hostPath('/var/run/kubevirt-private');
      fs.mkdirSync(layout.hostPath('/var/run/kubevirt/sockets'), { recursive: true });
      fs.mkdirSync(priv, { recursive: true });
      // What virt-handler's phase 1 leaves for the launcher's DHCP server (packages/launcher network/dhcp.ts).
      if (plan.dhcp)
        fs.writeFileSync(path.join(priv, `vif-cache-${net.podIface}.pb`), DhcpServerConfig.encode(plan.dhcp).finish());
      for (const line of placeContainerDisks(layout, vmi, args.containerDisks, args.kernelBootDir)) print(`  ${line}`);
    });

    // The demo guest reads vlt.probe=IP:PORT from its kernel command line and connects to the node through NAT.
    const kb = vmi.spec?.domain?.firmware?.kernelBoot;
    if (kb) kb.kernelArgs = `${kb.kernelArgs ?? ''} vlt.probe=${net.nodeIp}:${PROBE_PORT}`.trim();
    const probe = await startNodeProbe(net.nodeNs, net.nodeIp, PROBE_PORT);
    cleanup.push('node probe', () => probe.stop());

    let domainStatus = '';
    const decisions = new HandlerDecisions(grace, vmi.spec?.domain?.features?.acpi?.enabled !== false);
    let syncFailed = false;
    const handler = await startHandlerStandIn(
      layout.hostPath('/var/run/kubevirt/domain-notify-pipe.sock'),
      (e: DomainEventSummary) => {
        domainStatus = e.status;
        print(
          `  domain event ${e.eventType}: ${e.status || '-'}${e.reason ? ` (${e.reason})` : ''}${e.markedForGracefulShutdown ? ', marked for graceful shutdown' : ''}`,
        );
        // virt-handler's answers: Shutdown/Kill for the graceful mark, phase + Delete for a domain that is off.
        const { action, phase } = launcher ? decisions.next(e) : {};
        if (phase && action === 'delete') print(`  VMI phase: ${phase}`);
        const rpc = action && (`${action}VirtualMachine` as const);
        if (rpc && launcher) {
          const label = rpc.charAt(0).toUpperCase() + rpc.slice(1);
          void launcher
            .call(rpc, { vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) }, options: undefined })
            .then((r) => print(`  ${label}: ${r.success ? 'ok' : r.message}`))
            .catch((err: Error) => print(`  ${label} failed: ${err.message}`));
        }
      },
    );
    cleanup.push('handler stand-in', () => handler.close());

    const started = performance.now();
    pod = startPodProcess({
      repo,
      podNs: net.podNs,
      runRoot,
      hostname: vmi.spec?.hostname ?? name,
      name,
      namespace,
      uid,
      gracePeriodSeconds: grace,
      kvm: hypervisor.kvm,
      allowEmulation: hypervisor.allowEmulation,
      logFile: path.join(runRoot, 'pod.log'),
      onLogLine: (line) => (args.verbose || isMilestone(line)) && print(`  [pod] ${compactLog(line)}`),
    });
    const podRef = pod;
    cleanup.push('pod process', async () => {
      if (podRef.child.exitCode !== null) return;
      // virt-handler deletes the domain of a VMI that failed or whose domain is off; the launcher's last event then
      // says "deleted" and it exits at once instead of waiting out its final-notify timeouts (15 s + 30 s).
      if (launcher && (syncFailed || domainStatus === 'Shutoff')) {
        const vmiJson = Buffer.from(JSON.stringify(vmi));
        await launcher
          .call('deleteVirtualMachine', { vmi: { vmiJson }, options: undefined }, 10_000)
          .catch(() => undefined);
      }
      await podRef.terminate();
      // Without a guest there is nothing to power off: a pod that ignores SIGTERM then is not worth the grace period.
      const waitS = launcher && !syncFailed ? grace + 20 : 10;
      const done = await Promise.race([podRef.exited.then(() => true), sleep(waitS * 1000).then(() => false)]);
      if (!done) {
        print(`pod did not stop within ${waitS} s: killing it`);
        podRef.kill();
        await podRef.exited;
      }
      // Closed only now: while the pod stops, the handler stand-in still sends ShutdownVirtualMachine through it.
      launcher?.close();
    });
    const sock = layout.hostPath('/var/run/kubevirt/sockets/launcher-sock');
    await waitForFile(sock, pod.exited, 60_000, abort.signal);
    clock.mark('launcher ready (launcher-sock)', started);

    launcher = await interruptible('connecting to the launcher', connectLauncher(sock));
    const syncStart = performance.now();
    const sync = launcher.call(
      'syncVirtualMachine',
      {
        vmi: { vmiJson: Buffer.from(JSON.stringify(vmi)) },
        options: {
          VirtualMachineSMBios: { manufacturer: 'KubeVirt', product: 'None', version: '', sku: '', family: 'KubeVirt' },
          MemBalloonStatsPeriod: 10,
          PreallocatedVolumes: [],
          topology: undefined,
          DisksInfo: {},
          ExpandDisksEnabled: false,
          clusterConfig: undefined,
          interfaceDomainAttachment: masq ? { [masq.name]: 'tap' } : {},
          interfaceMigration: {},
          pluginsJson: Buffer.alloc(0),
          GraceHostDeviceAliases: [],
        },
      },
      60_000,
    );
    const res = await interruptible('SyncVirtualMachine', sync);
    if (!res.success) {
      syncFailed = true;
      throw new StartFailedError(res.message);
    }
    clock.mark('SyncVirtualMachine (define, prepare storage, start)', syncStart);

    const bootStart = performance.now();
    const serial = watchSerialConsole(
      layout.hostPath(`/var/run/kubevirt-private/${uid}/virt-serial0`),
      (line) => args.console && print(`  [console] ${line}`),
      abort.signal,
    );
    cleanup.push('serial console', () => serial.close());
    const timeout = sleep(args.timeoutSeconds * 1000).then(() => 'timeout' as const);
    const podGone = pod.exited.then(() => 'pod exited' as const);
    const first = await Promise.race([serial.lease, aborted, timeout, podGone]);
    if (first.startsWith('VLT-GUEST')) {
      leased = true;
      clock.mark('guest boot → DHCP lease', bootStart);
      print(`guest lease: ${first.replace(/^.*VLT-GUEST: lease /, '')}`);
      const hello = await Promise.race([
        probe.firstHello,
        sleep(20_000).then(() => undefined),
        aborted.then(() => undefined),
      ]);
      print(
        hello
          ? `node received "${hello.text}" from ${hello.from.replace(/^::ffff:/, '')} (the pod's address ${net.podIp}: masquerade works)`
          : 'the node saw no connection from the guest within 20 s',
      );
      const inbound = await execa('ip', ['netns', 'exec', net.nodeNs, 'busybox', 'nc', '-w', '5', net.podIp, '80'], {
        input: 'GET / HTTP/1.0\r\n\r\n',
        reject: false,
      });
      const body = inbound.stdout.split('\n').pop()?.trim();
      print(
        body ? `node → pod:80 reached the guest's web server: "${body}"` : 'node → pod:80: no answer from the guest',
      );
    } else {
      print(`no lease: ${first}`);
    }
    if (!args.untilLease && !abort.signal.aborted && first !== 'pod exited') {
      print('the guest is running: Ctrl-C shuts the pod down');
      await Promise.race([aborted, pod.exited]);
    }
    const stopStart = performance.now();
    await cleanup.run((what, err) => print(`cleanup of ${what} failed: ${(err as Error).message}`));
    clock.mark('graceful shutdown and cleanup', stopStart);
    const exitCode = await pod.exited;
    print(`pod exited with ${exitCode}\nphases:\n${clock.summary()}`);
    return { leased, exitCode };
  } finally {
    await cleanup.run((what, err) => print(`cleanup of ${what} failed: ${(err as Error).message}`));
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
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
