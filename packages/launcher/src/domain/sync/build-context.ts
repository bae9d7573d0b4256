// The pure half of SyncVMI's first step: host facts (probed by gather-context.ts) and the request's options in,
// the converter's context out. No filesystem, no daemon, so every rule here is unit-testable as any user.
import type { VirtualMachineOptions } from '../../gen/kubevirt/cmd/v1/cmd.js';
import type { ConverterContext } from '../../adapters/converter.js';
import type { ImageFacts } from '../../adapters/ephemeral-disk.js';
import { InvalidRequestError } from '../../errors.js';
import type { LauncherFlags } from '../../flags.js';
import type { LauncherPaths } from '../../paths.js';
import type { VmiView } from '../../vmi.js';
import { defaultedNetworking } from './default-pod-network.js';
import { volumeStatusMaps } from './runtime/context-facts.js';
import type { HostDeviceLists } from './host-devices/from-environment.js';
import type { VolumeBlockSizes } from './block-size.js';
import { crossArchFields } from './cross-arch.js';
import type { HostNumaNode } from './host-numa.js';

/** What the probe found on this host for one VMI: plain data, nothing decided yet. */
export interface HostFacts {
  /** Node's `process.arch`. */
  nodeArch: string;
  hypervisorDeviceAvailable: boolean;
  /** Per volume named by `blockCandidates`: whether its device under the run root is a block device. */
  blockVolumes: Record<string, boolean>;
  /** MTU of the tap0 that network phase 1 made; undefined when there is no tap0. */
  tap0Mtu: number | undefined;
  /** qemu-img facts per container disk volume name (from `containerDiskVolumes`). */
  containerDisks: Record<string, ImageFacts>;
  libvirtVersion: string;
  /** Taps the pod side made for NICs on secondary networks, by interface name (runtime/context-facts.ts). */
  secondaryTaps?: Record<string, { tapName: string; mtu: number }>;
  /** The MAC the node side's DHCP config hands each bridge NIC's guest (network/dhcp-targets.ts), by interface. */
  bridgeGuestMacs?: Record<string, string>;
  /** The pod's cgroup cpuset, sorted (pod-cpuset.ts); read only for a VMI with dedicatedCpuPlacement. */
  podCpuSet?: number[];
  /** Host devices, GPUs and SR-IOV VFs the device plugins and Multus gave the pod (host-devices/). */
  hostDevices?: HostDeviceLists;
  /** The host's NUMA nodes (host-numa.ts); read only for a VMI with guest NUMA passthrough. */
  hostNumaNodes?: HostNumaNode[];
  /** Measured block sizes of the volumes blockSize.matchVolume disks use (block-size-probe.ts). */
  volumeBlockSizes?: Record<string, VolumeBlockSizes>;
  /** VIRT_LAUNCHER_LOG_VERBOSITY when it is a number (launcher-debug-facts.ts). */
  launcherLogVerbosity?: number;
  /** The pod's vsock namespace is in local mode (launcher-debug-facts.ts). */
  vsockLocalNamespace?: boolean;
}

const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', s390x: 's390x', ppc64: 'ppc64le' };

const defaultSmbios = { manufacturer: 'KubeVirt', product: 'None', version: '', sku: '', family: 'KubeVirt' };

/** Volumes that may be a block device in the pod: PVCs, ephemeral volumes and data volumes. */
export function blockCandidates(vmi: VmiView): string[] {
  return vmi.volumes.filter((v) => v.persistentVolumeClaim || v.ephemeral || v.dataVolume).map((v) => v.name);
}

/** Container disk volumes with the index that names their image file (`disk_<index>.img`). */
export function containerDiskVolumes(vmi: VmiView): Array<{ name: string; index: number }> {
  return vmi.volumes
    .map((v, index) => ({ v, index }))
    .filter(({ v }) => v.containerDisk)
    .map(({ v, index }) => ({ name: v.name, index }));
}

/** Only raw, or qcow2 without a backing file, is accepted: a backing file could point anywhere on the node. */
export function containerDiskInfo(containerDisks: HostFacts['containerDisks']): ConverterContext['disksInfo'] {
  const info: ConverterContext['disksInfo'] = {};
  for (const [name, facts] of Object.entries(containerDisks)) {
    if (facts.format !== 'raw' && !(facts.format === 'qcow2' && !facts.backingFile)) {
      throw new InvalidRequestError(
        `container disk ${name}: unsupported image format ${facts.format}${facts.backingFile ? ' with a backing file' : ''}`,
        name,
      );
    }
    info[name] = {
      format: facts.format,
      backingFilename: facts.backingFile ?? '',
      actualSize: BigInt(facts.actualSize ?? 0),
      virtualSize: BigInt(facts.virtualSize),
    };
  }
  return info;
}

/**
 * The converter emits ethernet NICs only with an attachment, so masquerade and bridge NICs default to a tap; a
 * pod-network NIC of those kinds is plugged into the tap0 network phase 1 (netsetup) made, when it exists.
 */
export function interfacePlan(
  vmi: VmiView,
  options: VirtualMachineOptions | undefined,
  tap0Mtu: number | undefined,
  guestMacs: Record<string, string> = {},
): Pick<ConverterContext, 'domainAttachmentByInterfaceName' | 'podInterfaces'> {
  const attachment = { ...(options?.interfaceDomainAttachment ?? {}) };
  const podInterfaces: ConverterContext['podInterfaces'] = {};
  // Decided on the defaulted VMI, as the converter converts it: a VMI naming no NIC still gets the pod's tap0.
  const { interfaces, networks } = defaultedNetworking(vmi);
  const podNetworks = new Set(networks.filter((n) => n.pod).map((n) => n.name));
  for (const iface of interfaces) {
    const tapBacked = Boolean(iface.masquerade || iface.bridge);
    if (tapBacked && !attachment[iface.name]) attachment[iface.name] = 'tap';
    if (tapBacked && podNetworks.has(iface.name) && tap0Mtu !== undefined) {
      podInterfaces[iface.name] = {
        tapName: 'tap0',
        mac: iface.macAddress || guestMacs[iface.name] || '',
        mtu: tap0Mtu,
      };
    }
  }
  return { domainAttachmentByInterfaceName: attachment, podInterfaces };
}

/** A bridge NIC on a secondary network is plugged into the tap the pod side made for it (hotplugged NICs). */
function withSecondaryTaps(
  plan: ReturnType<typeof interfacePlan>,
  vmi: VmiView,
  taps: HostFacts['secondaryTaps'],
  guestMacs: Record<string, string> = {},
): ReturnType<typeof interfacePlan> {
  for (const [name, tap] of Object.entries(taps ?? {})) {
    const mac = vmi.interfaces.find((i) => i.name === name)?.macAddress || guestMacs[name] || '';
    plan.podInterfaces[name] ??= { tapName: tap.tapName, mac, mtu: tap.mtu };
  }
  return plan;
}

function converterPaths(paths: LauncherPaths): ConverterContext['paths'] {
  return {
    kubevirtPrivateDir: paths.privateDir,
    ephemeralDiskDir: paths.ephemeralDiskDir,
    containerDiskDir: paths.containerDiskDir,
    hotplugDiskDir: paths.hotplugDiskDir,
    libvirtRunDir: paths.libvirtRunDir,
    cloudInitDir: paths.cloudInitDir,
    ephemeralOverlayDir: paths.diskDataDir,
    kubevirtRunDir: paths.shareDir,
  };
}

export function buildContext(
  facts: HostFacts,
  vmi: VmiView,
  options: VirtualMachineOptions | undefined,
  flags: Pick<LauncherFlags, 'allowEmulation' | 'allowCrossArchEmulation' | 'runAsNonroot'>,
  paths: LauncherPaths,
): ConverterContext {
  const cluster = options?.clusterConfig;
  return {
    // The host's architecture, or the VMI's when --allow-cross-arch-emulation lets it be emulated.
    ...crossArchFields(goArch[facts.nodeArch] ?? facts.nodeArch, vmi.architecture, flags.allowCrossArchEmulation),
    // A missing device never turns emulation on by itself: only --allow-emulation does (see hypervisorFacts).
    allowEmulation: flags.allowEmulation,
    hypervisorDeviceAvailable: facts.hypervisorDeviceAvailable,
    // The converter pins each vCPU (and the emulator thread) to these and refuses a set too small for them.
    cpuSet: [...(facts.podCpuSet ?? [])],
    // Read only when guest NUMA passthrough needs it; without it such a VMI is refused by the converter.
    hostNumaNodes: [...(facts.hostNumaNodes ?? [])],
    volumeBlockSizes: { ...(facts.volumeBlockSizes ?? {}) },
    isBlockPvc: { ...facts.blockVolumes },
    isBlockDv: { ...facts.blockVolumes },
    ...volumeStatusMaps(vmi),
    disksInfo: containerDiskInfo(facts.containerDisks),
    smbios: options?.VirtualMachineSMBios ?? { ...defaultSmbios },
    efiConfiguration: undefined,
    memBalloonStatsPeriod: options?.MemBalloonStatsPeriod ?? 0,
    useVirtioTransitional: false,
    volumesDiscardIgnore: options?.PreallocatedVolumes ?? [],
    useLaunchSecuritySev: false,
    useLaunchSecurityPv: false,
    freePageReporting:
      !(cluster?.FreePageReportingDisabled ?? false) &&
      vmi.annotations['kubevirt.io/free-page-reporting-disabled'] !== 'true',
    bochsForEfiGuests: cluster?.BochsDisplayForEFIGuests ?? false,
    serialConsoleLog: !(cluster?.SerialConsoleLogDisabled ?? false),
    // KubeVirt's PCINUMAAwareTopology gate: PCI host devices sit on an expander bus of their guest NUMA cell.
    pciNumaAwareTopologyEnabled: cluster?.PCINUMAAwareTopologyEnabled ?? false,
    ...withSecondaryTaps(
      interfacePlan(vmi, options, facts.tap0Mtu, facts.bridgeGuestMacs),
      vmi,
      facts.secondaryTaps,
      facts.bridgeGuestMacs,
    ),
    libvirtVersion: facts.libvirtVersion,
    paths: converterPaths(paths),
    applyCbt: {},
    hotplugPorts: true,
    nonRoot: flags.runAsNonroot,
    genericHostDevices: [...(facts.hostDevices?.genericHostDevices ?? [])],
    gpuHostDevices: [...(facts.hostDevices?.gpuHostDevices ?? [])],
    sriovDevices: [...(facts.hostDevices?.sriovDevices ?? [])],
    // Above 5 an amd64 domain writes SeaBIOS's debug port to <private>/QEMUSeaBiosDebugPipe, as KubeVirt's does.
    launcherLogVerbosity: facts.launcherLogVerbosity,
    // Local mode: virt-handler dials the guest at CID 3, so the domain must carry that CID.
    vsockLocalNamespace: facts.vsockLocalNamespace ?? false,
  };
}
