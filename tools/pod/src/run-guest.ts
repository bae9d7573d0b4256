// The phases of `virt-pod run` once the guest runs: its DHCP lease on the serial console, the masquerade checks in
// both directions, and waiting for Ctrl-C.
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import type { PodNetwork } from './namespaces.js';
import type { NodeProbe, ProbeHello } from './node-probe.js';
import type { PodProcess } from './pod-process.js';
import type { PodSpec } from './run-phases.js';
import type { RunState } from './run-state.js';
import { watchSerialConsole } from './serial-console.js';

/** What ended the wait for a lease: the console's lease line, or why there was none. */
export type LeaseWait = string;

/**
 * The lease the pod's families give the guest: its DHCPv4 lease (then, in a dual-stack pod, its DHCPv6 address
 * too, printed when it comes), or its DHCPv6 address in an IPv6-only pod.
 */
export async function awaitLease(s: RunState, spec: PodSpec, pod: PodProcess, net: PodNetwork): Promise<LeaseWait> {
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
  const first = await Promise.race([net.podIp ? serial.lease : serial.lease6, s.aborted, timeout, podGone]);
  if (isLease(first)) {
    s.clock.mark('guest boot → DHCP lease', bootStart);
    s.print(`VMI file → lease: ${((performance.now() - s.startedAt) / 1000).toFixed(2)} s (wall; phases overlap)`);
    s.print(`guest lease: ${first.replace(/^.*VLT-GUEST: (lease |ipv6 )/, '')}`);
    if (net.podIp && net.podIp6) {
      const six = await Promise.race([serial.lease6, sleep(60_000).then(() => 'none within 60 s')]);
      s.print(`guest ipv6 lease: ${six.replace(/^.*VLT-GUEST: ipv6 /, '')}`);
    }
  } else {
    s.print(`no lease: ${first}`);
  }
  return first;
}

export function isLease(first: LeaseWait): boolean {
  return /VLT-GUEST: (lease|ipv6) ip=/.test(first);
}

/** What the node must see of each family the pod has: the guest's hello text, and the pod address. */
function familiesOf(net: PodNetwork) {
  return [
    { name: 'IPv4', podIp: net.podIp, hello: 'hello-from-guest' },
    { name: 'IPv6', podIp: net.podIp6, hello: 'hello-from-guest-v6' },
  ].filter((f) => f.podIp !== '');
}

/** The guest reaches the node through NAT (the probe's hello), and the node reaches the guest's port 80. */
export async function checkMasquerade(s: RunState, probe: NodeProbe, net: PodNetwork): Promise<void> {
  const families = familiesOf(net);
  const hellos: ProbeHello[] = [];
  const deadline = sleep(20_000).then(() => undefined);
  // The guest says hello once per family, in whichever order its scripts get there.
  while (hellos.length < families.length) {
    const hello = await Promise.race([probe.nextHello(), deadline, s.aborted.then(() => undefined)]);
    if (!hello) break;
    hellos.push(hello);
  }
  for (const f of families) {
    const hello = hellos.find((h) => h.text === f.hello);
    s.print(
      hello
        ? `node received "${hello.text}" from ${hello.from.replace(/^::ffff:/, '')} (the pod's address ${f.podIp}: masquerade works)`
        : `the node saw no ${f.name} connection from the guest within 20 s`,
    );
    const inbound = await execa('ip', ['netns', 'exec', net.nodeNs, 'busybox', 'nc', '-w', '5', f.podIp, '80'], {
      input: 'GET / HTTP/1.0\r\n\r\n',
      reject: false,
    });
    const body = inbound.stdout.split('\n').pop()?.trim();
    const target = f.name === 'IPv4' ? 'pod:80' : `[${f.podIp}]:80`;
    s.print(
      body
        ? `node → ${target} reached the guest's web server: "${body}"`
        : `node → ${target}: no answer from the guest`,
    );
  }
}

/** Keeps the guest running until Ctrl-C, unless the run ends at the lease or the pod is gone. */
export async function holdUntilInterrupted(s: RunState, pod: PodProcess, first: LeaseWait): Promise<void> {
  if (!s.args.untilLease && !s.abort.signal.aborted && first !== 'pod exited') {
    s.print('the guest is running: Ctrl-C shuts the pod down');
    await Promise.race([s.aborted, pod.exited]);
  }
}
