// Step 1 of SyncVMI: probe the host (filesystem, /dev/kvm, tap0, container disk images, libvirt version) for
// plain facts, then build the converter context from them with the pure `buildContext`.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { VirtualMachineOptions } from '../../gen/kubevirt/cmd/v1/cmd.js';
import type { ConverterContext } from '../../adapters/converter.js';
import { loadEphemeralDisk } from '../../adapters/ephemeral-disk.js';
import type { VmiView } from '../../vmi.js';
import { blockCandidates, buildContext, containerDiskVolumes } from './build-context.js';
import { checkCrossArchEmulator } from './cross-arch.js';
import type { HostFacts } from './build-context.js';
import type { SyncEnv } from './env.js';
import { probeSecondaryTaps } from './runtime/context-facts.js';
import { bridgeGuestMacs } from '../../network/dhcp-targets.js';
import { readPodCpuSet, wantsDedicatedCpus } from './pod-cpuset.js';
import { probeVolumeBlockSizes } from './block-size-probe.js';
import { readHostNumaNodes, wantsNumaPassthrough } from './host-numa.js';
import { readHostDevices } from './host-devices/read.js';
import { wantsPciNumaNodes } from './host-devices/numa-nodes.js';
import { launcherLogVerbosity, vsockLocalNamespace } from './launcher-debug-facts.js';

async function isBlockDevice(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isBlockDevice(),
    () => false,
  );
}

export async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * KVM when the device exists; otherwise emulation only when --allow-emulation allows it, as KubeVirt does: the
 * converter then refuses with "kvm not present and emulation is not allowed". A missing device never switches
 * emulation on by itself (virt-controller passes the flag when the cluster allows it).
 */
export async function hypervisorFacts(
  allowEmulation: boolean,
  device = '/dev/kvm',
): Promise<Pick<ConverterContext, 'allowEmulation' | 'hypervisorDeviceAvailable'>> {
  return { allowEmulation, hypervisorDeviceAvailable: await exists(device) };
}

async function probeBlockVolumes(env: SyncEnv, vmi: VmiView): Promise<HostFacts['blockVolumes']> {
  const blockVolumes: HostFacts['blockVolumes'] = {};
  for (const name of blockCandidates(vmi)) {
    blockVolumes[name] = await isBlockDevice(join(env.paths.runRoot, 'dev', name));
  }
  return blockVolumes;
}

async function probeTap0Mtu(): Promise<number | undefined> {
  if (!(await exists('/sys/class/net/tap0'))) return undefined;
  return Number((await readFile('/sys/class/net/tap0/mtu', 'utf8').catch(() => '0')).trim()) || 0;
}

async function probeContainerDisks(env: SyncEnv, vmi: VmiView): Promise<HostFacts['containerDisks']> {
  const disks = containerDiskVolumes(vmi);
  const facts: HostFacts['containerDisks'] = {};
  if (disks.length === 0) return facts;
  const eph = await loadEphemeralDisk();
  for (const { name, index } of disks) {
    facts[name] = await eph.inspectImage(join(env.paths.containerDiskDir, `disk_${index}.img`));
  }
  return facts;
}

/** Everything SyncVMI needs to know about this host for one VMI; decides nothing. */
export async function probeHost(env: SyncEnv, vmi: VmiView, options?: VirtualMachineOptions): Promise<HostFacts> {
  const blockVolumes = await probeBlockVolumes(env, vmi);
  return {
    nodeArch: process.arch,
    blockVolumes,
    hypervisorDeviceAvailable: (await hypervisorFacts(env.flags.allowEmulation)).hypervisorDeviceAvailable ?? false,
    tap0Mtu: await probeTap0Mtu(),
    containerDisks: await probeContainerDisks(env, vmi),
    libvirtVersion: await env.conn().getLibVersion(),
    secondaryTaps: await probeSecondaryTaps(vmi),
    bridgeGuestMacs: await bridgeGuestMacs(env.paths.privateDir, vmi),
    // Only dedicated placement pins to it; an unreadable cpuset then fails the sync, as KubeVirt's does.
    podCpuSet: wantsDedicatedCpus(vmi) ? await readPodCpuSet(env.cgroupRoot) : undefined,
    // Device plugins' PCI_RESOURCE_*/MDEV_PCI_RESOURCE_*/USB_RESOURCE_* and Multus's network-info file.
    // With the PCINUMAAwareTopology gate and dedicated CPUs, each PCI device's host NUMA node from sysfs too.
    hostDevices: await readHostDevices(vmi.raw, env.paths.runRoot, process.env, wantsPciNumaNodes(vmi, options)),
    // virt-handler's topology, else the local daemon's capabilities: guest NUMA passthrough maps it, and
    // dedicated CPU placement fits vCPUs onto its cells and thread siblings.
    hostNumaNodes:
      wantsNumaPassthrough(vmi) || wantsDedicatedCpus(vmi)
        ? await readHostNumaNodes(options, () => env.conn().getCapabilities())
        : undefined,
    volumeBlockSizes: await probeVolumeBlockSizes(vmi, blockVolumes, env.paths),
    // KubeVirt's converter reads the variable itself (not --v), so only the environment counts here.
    launcherLogVerbosity: launcherLogVerbosity(process.env),
    vsockLocalNamespace: await vsockLocalNamespace(),
  };
}

export async function gatherContext(
  env: SyncEnv,
  vmi: VmiView,
  options: VirtualMachineOptions | undefined,
): Promise<ConverterContext> {
  const context = buildContext(await probeHost(env, vmi, options), vmi, options, env.flags, env.paths);
  await checkCrossArchEmulator(context);
  return context;
}
