// Whether the pod gets /dev/kvm, decided as virt-handler's device plugin and virt-controller's useEmulation would
// together: a pod only gets the device when KVM really runs a vCPU here, and the launcher is only told
// --allow-emulation when the pod will emulate. Some hosts expose a /dev/kvm whose (nested) KVM cannot run a vCPU
// with the host CPU model (QEMU exits at once with "failed to set MSR 0x10a ..."): a file test alone is not enough.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';

export type HypervisorChoice = 'auto' | 'kvm' | 'emulation';
export const HYPERVISOR_CHOICES: readonly HypervisorChoice[] = ['auto', 'kvm', 'emulation'];

/** What the pod's private /dev holds at /dev/kvm (tools/sandbox/private-root.sh --kvm). */
export type KvmDevice = 'host' | 'none' | 'broken';

/**
 * TEST ONLY. `broken` makes virt-pod see, in place of the host's /dev/kvm, a character device that is not KVM, in
 * the probe and in the pod alike: "present but unusable" on any machine. Never set it outside tests.
 */
export const TEST_KVM_DEVICE_ENV = 'VIRT_POD_TEST_KVM_DEVICE';

export interface HypervisorDecision {
  kvm: KvmDevice;
  allowEmulation: boolean;
  /** The one line that says what was chosen and why. */
  line: string;
}

export class HypervisorError extends Error {
  override name = 'HypervisorError';
}

export type ProbeResult = { usable: true } | { usable: false; reason: string };

/** A probe whose firmware printed nothing by then counts as unusable (a loaded machine starts QEMU in ~2 s). */
const PROBE_LIMIT_MS = 15_000;

/** The device the host offers the pod, if any. */
export function hostKvmDevice(env: NodeJS.ProcessEnv = process.env): Exclude<KvmDevice, 'none'> | undefined {
  const forced = env[TEST_KVM_DEVICE_ENV];
  if (forced !== undefined && forced !== '') {
    if (forced !== 'broken') throw new HypervisorError(`${TEST_KVM_DEVICE_ENV}=${forced}: only "broken" is known`);
    return 'broken';
  }
  return fs.existsSync('/dev/kvm') ? 'host' : undefined;
}

/** QEMU's -cpu for the domain's CPU model: the converter asks libvirt for host-model unless a model is named. */
export function probeCpuModel(model: string | undefined): string {
  return !model || model === 'host-model' || model === 'host-passthrough' ? 'host' : model;
}

/** The reason line of a failed QEMU start: its first own message, without the program and option prefixes. */
export function qemuReason(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const own = lines.find((l) => /^qemu-system-[\w-]+: /.test(l)) ?? lines[0] ?? 'QEMU exited without a message';
  return own
    .replace(/^qemu-system-[\w-]+: /, '')
    .replace(/^-accel kvm: /, '')
    .replace(/^error: /, '');
}

/**
 * Starts a disk-less VM with KVM and the domain's CPU model in the pod's own private-/dev construction, so the probe
 * sees exactly the device the pod would get. QEMU fails at its first vCPU reset when KVM cannot run that CPU; when it
 * can, the firmware runs on the vCPU and prints its banner on the debug port: that first byte means usable.
 */
export async function probeKvm(
  repo: string,
  root: string,
  device: KvmDevice,
  cpu: string,
  /** Only tests change it (tcg proves the banner detection on a host without KVM). */
  accel: 'kvm' | 'tcg' = 'kvm',
  /** Ctrl-C: the probe VM is stopped with the rest, never left running (it has its own session). */
  signal?: AbortSignal,
): Promise<ProbeResult> {
  const privateRoot = path.join(repo, 'tools/sandbox/private-root.sh');
  const qemu = execa(
    privateRoot,
    [
      'exec',
      root,
      '--kvm',
      device,
      '--',
      'qemu-system-x86_64',
      ...['-accel', accel, '-cpu', cpu, '-machine', 'q35', '-m', '32'],
      ...['-nodefaults', '-no-user-config', '-display', 'none'],
      // SeaBIOS writes its log to I/O port 0x402: stdout receives it once guest code runs.
      ...['-chardev', 'stdio,id=fw', '-device', 'isa-debugcon,iobase=0x402,chardev=fw'],
    ],
    // Its own session: a Ctrl-C on the terminal reaches virt-pod, which cleans up, not the probe.
    { reject: false, stdin: 'ignore', buffer: { stdout: false, stderr: true }, detached: true, cancelSignal: signal },
  );
  const firmwareRan = new Promise<'running'>((resolve) => qemu.stdout?.once('data', () => resolve('running')));
  const timer = new AbortController();
  const limit = sleep(PROBE_LIMIT_MS, 'silent' as const, { signal: timer.signal }).catch(() => 'silent' as const);
  const outcome = await Promise.race([qemu, firmwareRan, limit]);
  timer.abort();
  if (outcome === 'running' || outcome === 'silent') {
    qemu.kill('SIGKILL');
    await qemu;
    if (outcome === 'silent') return { usable: false, reason: `no vCPU ran within ${PROBE_LIMIT_MS / 1000} s` };
    return { usable: true };
  }
  return { usable: false, reason: qemuReason(String(outcome.stderr)) };
}

/** The pod's /dev/kvm and --allow-emulation for `--hypervisor choice`; `kvm` fails fast when KVM cannot run here. */
export async function decideHypervisor(
  choice: HypervisorChoice,
  cpuModel: string | undefined,
  probe: (device: KvmDevice, cpu: string) => Promise<ProbeResult>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<HypervisorDecision> {
  const emulate = (line: string): HypervisorDecision => ({ kvm: 'none', allowEmulation: true, line });
  if (choice === 'emulation') return emulate('hypervisor: emulation as asked (--hypervisor emulation), no /dev/kvm');
  const device = hostKvmDevice(env);
  if (!device) {
    if (choice === 'kvm') throw new HypervisorError('--hypervisor kvm: this host has no /dev/kvm');
    return emulate('no /dev/kvm on this host: using emulation');
  }
  const result = await probe(device, probeCpuModel(cpuModel));
  if (!result.usable) {
    if (choice === 'kvm') throw new HypervisorError(`--hypervisor kvm: KVM present but unusable (${result.reason})`);
    return emulate(`KVM present but unusable (${result.reason}): using emulation`);
  }
  return { kvm: device, allowEmulation: false, line: 'KVM runs a vCPU here: using kvm' };
}
