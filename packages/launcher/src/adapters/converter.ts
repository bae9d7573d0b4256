// The one place that knows @virt-launcher/converter's face (loaded at run time, see adapters/libvirt.ts).
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
  hotplugVolumes: Record<string, unknown>;
  permanentVolumes: Record<string, unknown>;
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
  genericHostDevices: unknown[];
  gpuHostDevices: unknown[];
  sriovDevices: unknown[];
}

export interface ConvertResult {
  domainXml: string;
  domainName: string;
}

interface ConverterFace {
  convertRequest(req: { vmiJson: Buffer; context: ConverterContext }): ConvertResult | Promise<ConvertResult>;
}

export class ConverterUnavailableError extends Error {
  constructor() {
    super('@virt-launcher/converter has no convertRequest() yet (its face has not landed)');
    this.name = 'ConverterUnavailableError';
  }
}

export async function convertVmi(vmiJson: Buffer, context: ConverterContext): Promise<ConvertResult> {
  const face = (await import(
    /* resolved at run time */ faceName('@virt-launcher/converter')
  )) as unknown as Partial<ConverterFace>;
  if (typeof face.convertRequest !== 'function') throw new ConverterUnavailableError();
  return face.convertRequest({ vmiJson, context });
}

/** A non-literal specifier: tsc must not require the package's dist/ to type-check the launcher. */
function faceName(name: string): string {
  return name;
}
