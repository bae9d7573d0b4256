// The phases of `virt-pod run` once the guest runs: its DHCP lease on the serial console, the masquerade checks in
// both directions, and waiting for Ctrl-C.
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import type { PodNetwork } from './namespaces.js';
import type { NodeProbe } from './node-probe.js';
import type { PodProcess } from './pod-process.js';
import type { PodSpec } from './run-phases.js';
import type { RunState } from './run-state.js';
import { watchSerialConsole } from './serial-console.js';

/** What ended the wait for a lease: the console's lease line, or why there was none. */
export type LeaseWait = string;

export async function awaitLease(s: RunState, spec: PodSpec, pod: PodProcess): Promise<LeaseWait> {
  const bootStart = performance.now();
  const serial = watchSerialConsole(
    spec.layout.hostPath(`/var/run/kubevirt-private/${spec.uid}/virt-serial0`),
    (line) => {
      s.onConsoleLine?.(line);
      if (s.args.console) s.print(`  [console] ${line}`);
    },
    s.abort.signal,
  );
  s.cleanup.push('serial console', () => serial.close());
  const timeout = sleep(s.args.timeoutSeconds * 1000).then(() => 'timeout' as const);
  const podGone = pod.exited.then(() => 'pod exited' as const);
  const first = await Promise.race([serial.lease, s.aborted, timeout, podGone]);
  if (first.startsWith('VLT-GUEST')) {
    s.clock.mark('guest boot → DHCP lease', bootStart);
    s.print(`VMI file → lease: ${((performance.now() - s.startedAt) / 1000).toFixed(2)} s (wall; phases overlap)`);
    s.print(`guest lease: ${first.replace(/^.*VLT-GUEST: lease /, '')}`);
  } else {
    s.print(`no lease: ${first}`);
  }
  return first;
}

export function isLease(first: LeaseWait): boolean {
  return first.startsWith('VLT-GUEST');
}

/** The guest reaches the node through NAT (the probe's hello), and the node reaches the guest's port 80. */
export async function checkMasquerade(s: RunState, probe: NodeProbe, net: PodNetwork): Promise<void> {
  const hello = await Promise.race([
    probe.firstHello,
    sleep(20_000).then(() => undefined),
    s.aborted.then(() => undefined),
  ]);
  s.print(
    hello
      ? `node received "${hello.text}" from ${hello.from.replace(/^::ffff:/, '')} (the pod's address ${net.podIp}: masquerade works)`
      : 'the node saw no connection from the guest within 20 s',
  );
  const inbound = await execa('ip', ['netns', 'exec', net.nodeNs, 'busybox', 'nc', '-w', '5', net.podIp, '80'], {
    input: 'GET / HTTP/1.0\r\n\r\n',
    reject: false,
  });
  const body = inbound.stdout.split('\n').pop()?.trim();
  s.print(body ? `node → pod:80 reached the guest's web server: "${body}"` : 'node → pod:80: no answer from the guest');
}

/** Keeps the guest running until Ctrl-C, unless the run ends at the lease or the pod is gone. */
export async function holdUntilInterrupted(s: RunState, pod: PodProcess, first: LeaseWait): Promise<void> {
  if (!s.args.untilLease && !s.abort.signal.aborted && first !== 'pod exited') {
    s.print('the guest is running: Ctrl-C shuts the pod down');
    await Promise.race([s.aborted, pod.exited]);
  }
}
