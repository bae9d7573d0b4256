// The libvirt domain the configurators build, in libvirt's terms. Optional fields that stay undefined
// are left out of the XML; toDomainXml() decides element order.

export interface Alias {
  name: string;
}

export interface PciAddress {
  type: 'pci';
  domain: string;
  bus: string;
  slot: string;
  function: string;
}

export interface DriveAddress {
  type: 'drive';
  controller: string;
  bus: string;
  unit: string;
}

export interface DiskDriver {
  name: 'qemu';
  type?: string;
  cache?: string;
  io?: string;
  errorPolicy?: string;
  discard?: string;
  iothread?: number;
  /** The supplemental pool's thread ids, all of which serve the disk (`<driver><iothreads>`). */
  iothreads?: number[];
  queues?: number;
  iommu?: string;
}

export interface DiskSource {
  file?: string;
  dev?: string;
  name?: string;
  reservations?: { managed: string; migration: string; source: { type: string; path: string; mode: string } };
  /** Changed block tracking: the qcow2 in `file` keeps the bitmaps, the volume itself is its raw data file. */
  dataStore?: BackingStore;
}

export interface BackingStore {
  type: 'file' | 'block';
  format: string;
  source: DiskSource;
}

export interface DomainDisk {
  device: 'disk' | 'cdrom' | 'lun';
  type: 'file' | 'block';
  model?: string;
  source: DiskSource;
  target: { bus: string; dev: string; tray?: string };
  serial?: string;
  driver: DiskDriver;
  readonly?: boolean;
  alias?: Alias;
  backingStore?: BackingStore;
  bootOrder?: number;
  address?: PciAddress | DriveAddress;
  blockio?: { logical: number; physical: number; discardGranularity?: number };
  shareable?: boolean;
}

export interface DomainInterface {
  type: 'ethernet' | 'vhostuser';
  source?: { dev?: string };
  target?: { dev: string; managed: 'no' };
  model: { type: string };
  mac?: string;
  mtu?: number;
  driver?: { name: string; queues?: number; iommu?: string };
  alias: Alias;
  bootOrder?: number;
  rom?: { enabled: 'no' };
  link?: { state: 'down' };
  address?: PciAddress;
  acpiIndex?: number;
  backend?: { type: string; logFile: string };
  portForwards?: { proto: string; ranges: { start: number; end?: number; exclude?: boolean }[] }[];
}

export interface Controller {
  type: string;
  index: number;
  model?: string;
  driver?: { iommu?: string; iothread?: number; queues?: number };
  pcihole64?: number;
  /** Set for a root port placed behind a pcie-expander-bus (PCI NUMA-aware placement). */
  address?: PciAddress;
  /** busNr and node: a pcie-expander-bus's first bus number and the guest NUMA cell it belongs to. */
  target?: { hotplug?: 'off'; busNr?: number; node?: number };
}

export interface HostDevice {
  type: 'pci' | 'mdev' | 'usb';
  managed?: string;
  mode?: string;
  model?: string;
  display?: string;
  ramfb?: string;
  source: { address?: PciAddress | { bus: string; device: string }; uuid?: string; vendor?: string; product?: string };
  alias?: Alias;
  bootOrder?: number;
  address?: PciAddress;
}

export interface Channel {
  type: 'unix';
  source?: { mode: 'bind'; path: string };
  target: { type: 'virtio'; name: string };
}

export interface Devices {
  emulator?: string;
  interfaces: DomainInterface[];
  channels: Channel[];
  hostdevs: HostDevice[];
  panics: { model: string }[];
  controllers: Controller[];
  videos: { type: string; heads?: number; vram?: number }[];
  graphics: { type: 'vnc'; listen: { type: 'socket'; socket: string } }[];
  memballoon?: { model: string; freePageReporting?: 'on' | 'off'; statsPeriod?: number; iommu?: string };
  disks: DomainDisk[];
  inputs: { type: string; bus: string; model?: string; alias?: Alias }[];
  serials: { type: 'unix'; port: number; path: string; log?: { file: string; append: 'on' } }[];
  consoles: { type: 'pty'; targetType: 'serial'; port: number }[];
  watchdogs: { model: string; action: string; alias?: Alias }[];
  rng?: { model: string; backend: string; iommu?: string };
  filesystems: { socket: string; target: string }[];
  redirdevs: { path: string }[];
  sounds: { model: string; alias?: Alias }[];
  tpms: { model: string; persistentState?: boolean }[];
  vsock?: { model: string; cid: number };
}

export interface HypervFeatureState {
  name: string;
  state: 'on' | 'off';
  attrs?: [string, string][];
  children?: HypervFeatureState[];
}

export interface Features {
  acpi?: boolean;
  apic?: boolean;
  hyperv?: HypervFeatureState[];
  hypervPassthrough?: boolean;
  smm?: boolean;
  kvm?: { hidden?: 'on' | 'off'; hintDedicated?: 'on' };
  pvspinlock?: 'on' | 'off';
  pmu?: 'off';
  vmport?: 'off';
}

export interface Cpu {
  mode: 'host-model' | 'host-passthrough' | 'custom';
  model?: string;
  topology: { sockets: number; cores: number; threads: number };
  /** `policy` is required by libvirt's schema; only libvirt-compat may leave none unfilled. */
  features: { name: string; policy?: string }[];
  numaCells: { id: number; cpus: string; memoryKiB: bigint; distances?: NumaCellDistance[] }[];
}

export interface Os {
  firmware?: 'efi';
  firmwareFeatures: { name: string; enabled: 'yes' | 'no' }[];
  type: { arch?: string; machine?: string; value: 'hvm' };
  acpiTables: { type: string; path: string }[];
  smbiosMode?: 'sysinfo';
  bootmenu?: { enable: 'yes'; timeout: number };
  biosUseSerial?: boolean;
  loader?: { readonly: 'yes'; secure: 'yes' | 'no'; type: string; path: string };
  nvram?: { template?: string; format?: string; path: string };
  kernel?: string;
  initrd?: string;
  cmdline?: string;
}

export interface SysinfoEntry {
  name: string;
  value: string;
}

export interface Sysinfo {
  system: SysinfoEntry[];
  chassis: SysinfoEntry[];
}

export interface Clock {
  /** Left out when the VMI names neither utc nor a timezone (libvirt then keeps its own default). */
  offset?: 'utc' | 'timezone';
  adjustment?: string;
  timezone?: string;
  timers: { name: string; tickpolicy?: string; present?: 'yes' | 'no'; track?: string; frequency?: number }[];
}

/** Dedicated CPU placement: host CPU lists (libvirt cpuset syntax) per vCPU, emulator and IOThread. */
export interface CpuTune {
  vcpupins: { vcpu: number; cpuset: string }[];
  emulatorpin?: string;
  iothreadpins: { iothread: number; cpuset: string }[];
  /** Realtime: vCPUs (libvirt cpuset syntax) run with SCHED_FIFO at this priority. */
  vcpusched?: { vcpus: string; scheduler: 'fifo'; priority: number };
}

/** <numatune>: guest memory kept on the host nodes the pinned CPUs belong to. */
export interface NumaTune {
  memory: { mode: 'strict'; nodeset: string };
  memnodes: { cellid: number; mode: 'strict'; nodeset: string }[];
}

/** <launchSecurity>: AMD SEV (policy bits and the optional owner's certificate and session blob). */
export interface LaunchSecurity {
  type: 'sev';
  policy: string;
  cbitpos?: number;
  reducedPhysBits?: number;
  dhCert?: string;
  session?: string;
}

export interface NumaCellDistance {
  id: number;
  value: number;
}

export interface Domain {
  type?: 'kvm' | 'qemu';
  name: string;
  /** Kubernetes identity, kept for callers; not written to XML. */
  metadata: { name: string; namespace: string; uid: string };
  memoryBytes?: bigint;
  maxMemory?: { bytes: bigint; slots: number };
  memoryBacking?: {
    hugepages?: boolean;
    /** Per guest NUMA cell hugepages (NUMA passthrough); replaces the bare <hugepages/>. */
    hugepagePages?: { sizeBytes: bigint; nodeset: string }[];
    nosharepages?: boolean;
    allocationImmediate?: boolean;
    sourceMemfd?: boolean;
    accessShared?: boolean;
  };
  os: Os;
  sysinfo?: Sysinfo;
  devices: Devices;
  clock?: Clock;
  qemuCommandline: string[];
  features: Features;
  cpu?: Cpu;
  vcpu?: number;
  vcpus: { id: number; enabled: 'yes' | 'no'; hotpluggable: 'yes' | 'no' }[];
  iothreads?: number;
  cputune?: CpuTune;
  numatune?: NumaTune;
  launchSecurity?: LaunchSecurity;
  onReboot?: 'destroy' | 'restart';
}

export function emptyDomain(): Domain {
  return {
    name: '',
    metadata: { name: '', namespace: '', uid: '' },
    os: { firmwareFeatures: [], type: { value: 'hvm' }, acpiTables: [] },
    devices: {
      interfaces: [],
      channels: [],
      hostdevs: [],
      panics: [],
      controllers: [],
      videos: [],
      graphics: [],
      disks: [],
      inputs: [],
      serials: [],
      consoles: [],
      watchdogs: [],
      filesystems: [],
      redirdevs: [],
      sounds: [],
      tpms: [],
    },
    qemuCommandline: [],
    features: {},
    vcpus: [],
  };
}
