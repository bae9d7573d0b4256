// The one place that knows @virt-launcher/converter's face. It is loaded at the first SyncVirtualMachine, not at
// start-up (readiness does not need it); the literal specifier keeps the call type-checked against the real face.
import type { HostDevice, VolumeStatus } from '@virt-launcher/converter';

export interface ConverterPaths {
  kubevirtPrivateDir?: string;
  ephemeralDiskDir?: string;
  containerDiskDir?: string;
  hotplugDiskDir?: string;
  libvirtRunDir?: string;
  cloudInitDir?: string;
  ephemeralOverlayDir?: string;
  kubevirtRunDir?: string;
  nvramDir?: string;
}

/** The subset of virtlauncher.converter.v1.ConverterContext the launcher fills. */
export interface ConverterContext {
  architecture?: string;
  allowEmulation?: boolean;
  hypervisorDeviceAvailable?: boolean;
  cpuSet: number[];
  isBlockPvc: Record<string, boolean>;
  isBlockDv: Record<string, boolean>;
  hotplugVolumes: Record<string, VolumeStatus>;
  permanentVolumes: Record<string, VolumeStatus>;
  disksInfo: Record<string, { format: string; backingFilename: string; actualSize: bigint; virtualSize: bigint }>;
  smbios?: { manufacturer: string; product: string; version: string; sku: string; family: string };
  efiConfiguration?: undefined;
  memBalloonStatsPeriod: number;
  useVirtioTransitional: boolean;
  volumesDiscardIgnore: string[];
  useLaunchSecuritySev: boolean;
  useLaunchSecurityPv: boolean;
  freePageReporting: boolean;
  bochsForEfiGuests: boolean;
  serialConsoleLog: boolean;
  domainAttachmentByInterfaceName: Record<string, string>;
  podInterfaces: Record<string, { tapName: string; mac: string; mtu: number }>;
  libvirtVersion?: string;
  paths: ConverterPaths;
  applyCbt: Record<string, string>;
  hotplugPorts?: boolean;
  nonRoot: boolean;
  genericHostDevices: HostDevice[];
  gpuHostDevices: HostDevice[];
  sriovDevices: HostDevice[];
}

export interface ConvertResult {
  domainXml: string;
  domainName: string;
}

export async function convertVmi(vmiJson: Buffer, context: ConverterContext): Promise<ConvertResult> {
  const face = await import('@virt-launcher/converter');
  return face.convertRequest({ vmiJson, context: face.ConverterContext.fromPartial(context) });
}
