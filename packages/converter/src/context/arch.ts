// Per-architecture facts KubeVirt keeps in its arch converters (amd64.go, arm64.go, s390x.go).

export type Arch = 'amd64' | 'arm64' | 's390x';

export interface ArchFacts {
  arch: Arch;
  /** libvirt's <type arch>. */
  libvirtArch: string;
  defaultMachine: string;
  smbiosNeeded: boolean;
  hasVmport: boolean;
  romTuning: boolean;
  memfdSupported: boolean;
  cpuHotplug: boolean;
  mpxValidation: boolean;
  defaultCpuMode: 'host-model' | 'host-passthrough';
  defaultDiskBus: string;
  defaultVideo: string;
  /** SeaBIOS's debug port (isa-debugcon at 0x402) exists: only amd64 writes the firmware log. */
  firmwareDebugLog: boolean;
}

const FACTS: Record<Arch, ArchFacts> = {
  amd64: {
    arch: 'amd64',
    libvirtArch: 'x86_64',
    defaultMachine: 'q35',
    smbiosNeeded: true,
    hasVmport: true,
    romTuning: true,
    memfdSupported: true,
    cpuHotplug: true,
    mpxValidation: true,
    defaultCpuMode: 'host-model',
    defaultDiskBus: 'sata',
    defaultVideo: 'vga',
    firmwareDebugLog: true,
  },
  arm64: {
    arch: 'arm64',
    libvirtArch: 'aarch64',
    defaultMachine: 'virt',
    smbiosNeeded: true,
    hasVmport: false,
    romTuning: true,
    memfdSupported: true,
    cpuHotplug: false,
    mpxValidation: false,
    defaultCpuMode: 'host-passthrough',
    defaultDiskBus: 'virtio',
    defaultVideo: 'virtio',
    firmwareDebugLog: false,
  },
  s390x: {
    arch: 's390x',
    libvirtArch: 's390x',
    defaultMachine: 's390-ccw-virtio',
    smbiosNeeded: false,
    hasVmport: false,
    romTuning: false,
    memfdSupported: false,
    cpuHotplug: true,
    mpxValidation: false,
    defaultCpuMode: 'host-model',
    defaultDiskBus: 'virtio',
    defaultVideo: 'virtio',
    firmwareDebugLog: false,
  },
};

/** Unknown architectures get amd64's facts, as KubeVirt's defaulter does. */
export function archFacts(arch: string | undefined): ArchFacts {
  return FACTS[(arch ?? 'amd64') as Arch] ?? FACTS.amd64;
}

/** Node's process.arch spelled the Go way. */
export function goArch(nodeArch: string): string {
  return nodeArch === 'x64' ? 'amd64' : nodeArch;
}
