// Step 1 of SyncVMI: the converter context from the filesystem and libvirt: block or file per PVC volume,
// container disk facts, libvirt version, KVM or TCG, options of the request.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { VirtualMachineOptions } from '../../gen/kubevirt/cmd/v1/cmd.js';
import type { ConverterContext } from '../../adapters/converter.js';
import { loadEphemeralDisk } from '../../adapters/ephemeral-disk.js';
import { InvalidRequestError } from '../../errors.js';
import type { VmiView } from '../../vmi.js';
import type { SyncEnv } from './env.js';

const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', s390x: 's390x', ppc64: 'ppc64le' };

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

/** qemu-img facts of each container disk; only raw, or qcow2 without a backing file, is accepted. */
async function containerDiskInfo(env: SyncEnv, vmi: VmiView): Promise<ConverterContext['disksInfo']> {
  const info: ConverterContext['disksInfo'] = {};
  const disks = vmi.volumes.map((v, index) => ({ v, index })).filter(({ v }) => v.containerDisk);
  if (disks.length === 0) return info;
  const eph = await loadEphemeralDisk();
  for (const { v, index } of disks) {
    const path = join(env.paths.containerDiskDir, `disk_${index}.img`);
    const facts = await eph.inspectImage(path);
    if (facts.format !== 'raw' && !(facts.format === 'qcow2' && !facts.backingFile)) {
      throw new InvalidRequestError(
        `container disk ${v.name}: unsupported image format ${facts.format}${facts.backingFile ? ' with a backing file' : ''}`,
        v.name,
      );
    }
    info[v.name] = {
      format: facts.format,
      backingFilename: facts.backingFile ?? '',
      actualSize: BigInt(facts.actualSize ?? 0),
      virtualSize: BigInt(facts.virtualSize),
    };
  }
  return info;
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

export async function gatherContext(
  env: SyncEnv,
  vmi: VmiView,
  options: VirtualMachineOptions | undefined,
): Promise<ConverterContext> {
  const isBlockPvc: Record<string, boolean> = {};
  for (const v of vmi.volumes) {
    if (v.persistentVolumeClaim || v.ephemeral || v.dataVolume) {
      isBlockPvc[v.name] = await isBlockDevice(join(env.paths.runRoot, 'dev', v.name));
    }
  }
  const hypervisor = await hypervisorFacts(env.flags.allowEmulation);
  const cluster = options?.clusterConfig;
  const attachment = { ...(options?.interfaceDomainAttachment ?? {}) };
  const podInterfaces: ConverterContext['podInterfaces'] = {};
  const podNetworks = new Set(vmi.networks.filter((n) => n.pod).map((n) => n.name));
  for (const iface of vmi.interfaces) {
    // The converter emits ethernet NICs only with an attachment; masquerade and bridge always use a tap.
    if ((iface.masquerade || iface.bridge) && !attachment[iface.name]) attachment[iface.name] = 'tap';
    // Network phase 1 (netsetup) made tap0 for the pod network; plug the NIC into it when it exists.
    if (podNetworks.has(iface.name) && (iface.masquerade || iface.bridge) && (await exists('/sys/class/net/tap0'))) {
      const mtu = Number((await readFile('/sys/class/net/tap0/mtu', 'utf8').catch(() => '0')).trim()) || 0;
      podInterfaces[iface.name] = { tapName: 'tap0', mac: iface.macAddress ?? '', mtu };
    }
  }
  const smbios = options?.VirtualMachineSMBios;
  return {
    architecture: goArch[process.arch] ?? process.arch,
    ...hypervisor,
    cpuSet: [],
    isBlockPvc,
    isBlockDv: { ...isBlockPvc },
    hotplugVolumes: {},
    permanentVolumes: {},
    disksInfo: await containerDiskInfo(env, vmi),
    smbios: smbios ?? { manufacturer: 'KubeVirt', product: 'None', version: '', sku: '', family: 'KubeVirt' },
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
    domainAttachmentByInterfaceName: attachment,
    podInterfaces,
    libvirtVersion: await env.conn().getLibVersion(),
    paths: {
      kubevirtPrivateDir: env.paths.privateDir,
      ephemeralDiskDir: env.paths.ephemeralDiskDir,
      containerDiskDir: env.paths.containerDiskDir,
      hotplugDiskDir: env.paths.hotplugDiskDir,
      libvirtRunDir: env.paths.libvirtRunDir,
      cloudInitDir: env.paths.cloudInitDir,
      ephemeralOverlayDir: env.paths.diskDataDir,
      kubevirtRunDir: env.paths.shareDir,
    },
    applyCbt: {},
    hotplugPorts: true,
    nonRoot: env.flags.runAsNonroot,
    genericHostDevices: [],
    gpuHostDevices: [],
    sriovDevices: [],
  };
}
