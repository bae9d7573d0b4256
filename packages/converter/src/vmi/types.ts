// The part of KubeVirt's kubevirt.io/v1 VirtualMachineInstance that the converter reads, with the API's
// JSON field names. Quantities stay strings here: they are parsed (and validated) where they are used.

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
}

export interface Toggle {
  enabled?: boolean;
}

export interface HypervFeatures {
  relaxed?: Toggle;
  vapic?: Toggle;
  spinlocks?: Toggle & { spinlocks?: number };
  vpindex?: Toggle;
  runtime?: Toggle;
  synic?: Toggle;
  synictimer?: Toggle & { direct?: Toggle };
  reset?: Toggle;
  vendorid?: Toggle & { vendorid?: string };
  frequencies?: Toggle;
  reenlightenment?: Toggle;
  tlbflush?: Toggle & { direct?: Toggle; extended?: Toggle };
  ipi?: Toggle;
  evmcs?: Toggle;
}

export interface Features {
  acpi?: Toggle;
  apic?: Toggle & { endOfInterrupt?: boolean };
  smm?: Toggle;
  hyperv?: HypervFeatures;
  hypervPassthrough?: Toggle;
  kvm?: { hidden?: boolean };
  pvspinlock?: Toggle;
}

export interface Timer {
  present?: boolean;
  tickPolicy?: string;
  track?: string;
}

export interface Clock {
  utc?: { offsetSeconds?: number };
  timezone?: string;
  timer?: { hpet?: Timer; kvm?: Timer; pit?: Timer; rtc?: Timer; hyperv?: Timer };
}

export interface CpuFeature {
  name: string;
  policy?: string;
}

export interface Cpu {
  cores?: number;
  sockets?: number;
  threads?: number;
  maxSockets?: number;
  model?: string;
  features?: CpuFeature[];
  dedicatedCpuPlacement?: boolean;
  isolateEmulatorThread?: boolean;
  numa?: { guestMappingPassthrough?: object };
  realtime?: { mask?: string };
}

export interface Memory {
  guest?: string;
  maxGuest?: string;
  hugepages?: { pageSize?: string };
}

export interface Resources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

export interface KernelBoot {
  kernelArgs?: string;
  container?: { image?: string; kernelPath?: string; initrdPath?: string };
}

export interface Firmware {
  uuid?: string;
  serial?: string;
  bootloader?: { bios?: { useSerial?: boolean }; efi?: { secureBoot?: boolean; persistent?: boolean } };
  kernelBoot?: KernelBoot;
  acpi?: { slicNameRef?: string; msdmNameRef?: string };
}

export type DiskBus = 'virtio' | 'sata' | 'scsi' | 'usb';

export interface DiskDevice {
  disk?: { bus?: string; readonly?: boolean; pciAddress?: string };
  lun?: { bus?: string; readonly?: boolean; reservation?: boolean };
  cdrom?: { bus?: string; readonly?: boolean; tray?: string };
}

export interface Disk extends DiskDevice {
  name: string;
  bootOrder?: number;
  serial?: string;
  dedicatedIOThread?: boolean;
  cache?: string;
  io?: string;
  shareable?: boolean;
  errorPolicy?: string;
  blockSize?: {
    custom?: { logical: number; physical: number; discardGranularity?: number };
    matchVolume?: Toggle;
  };
}

export interface Interface {
  name: string;
  model?: string;
  macAddress?: string;
  bootOrder?: number;
  pciAddress?: string;
  acpiIndex?: number;
  state?: string;
  masquerade?: object;
  bridge?: object;
  sriov?: object;
  passt?: object;
  passtBinding?: object;
  binding?: { name: string };
  ports?: { name?: string; protocol?: string; port: number }[];
  /** Forwarded by the pod network set-up (netsetup), not by the domain. */
  portRanges?: PortRange[];
}

/** A range of ports a masquerade interface forwards to the guest (KubeVirt's PortRangesSpec feature). */
export interface PortRange {
  /** TCP or UDP. */
  protocol: string;
  start: number;
  end: number;
}

export interface Input {
  name: string;
  /** The API defaults it to tablet. */
  type?: string;
  /** The API defaults it to usb. */
  bus?: string;
}

/** A device from a Kubernetes DRA resource claim: an entry of `spec.resourceClaims` and one of its requests. */
export interface ClaimRequest {
  claimName?: string;
  requestName?: string;
}

export interface Gpu extends ClaimRequest {
  name: string;
  deviceName?: string;
  virtualGPUOptions?: { display?: { enabled?: boolean; ramFB?: Toggle } };
}

/** A VMI readiness or liveness probe (only the fields the API defaults). */
export interface Probe {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  [handler: string]: unknown;
}

export interface Devices {
  disks?: Disk[];
  interfaces?: Interface[];
  inputs?: Input[];
  gpus?: Gpu[];
  hostDevices?: ({ name: string; deviceName?: string } & ClaimRequest)[];
  autoattachPodInterface?: boolean;
  watchdog?: { name: string; i6300esb?: { action?: string }; diag288?: { action?: string } };
  rng?: object;
  sound?: { name: string; model?: string };
  tpm?: { enabled?: boolean; persistent?: boolean };
  autoattachGraphicsDevice?: boolean;
  autoattachSerialConsole?: boolean;
  autoattachMemBalloon?: boolean;
  autoattachInputDevice?: boolean;
  disableHotplug?: boolean;
  useVirtioTransitional?: boolean;
  networkInterfaceMultiqueue?: boolean;
  blockMultiQueue?: boolean;
  downwardMetrics?: object;
  clientPassthrough?: object;
  filesystems?: { name: string; virtiofs?: object }[];
  video?: { type?: string };
  panicDevices?: { model?: string }[];
  logSerialConsole?: boolean;
}

export interface DomainSpec {
  resources?: Resources;
  cpu?: Cpu;
  memory?: Memory;
  machine?: { type?: string };
  firmware?: Firmware;
  clock?: Clock;
  features?: Features;
  devices: Devices;
  ioThreadsPolicy?: string;
  ioThreads?: { supplementalPoolThreadCount?: number };
  chassis?: { manufacturer?: string; version?: string; serial?: string; asset?: string; sku?: string };
  rebootPolicy?: string;
  launchSecurity?: {
    sev?: { policy?: { encryptedState?: boolean }; dhCert?: string; session?: string };
    snp?: object;
    tdx?: object;
  };
}

export interface Volume {
  name: string;
  containerDisk?: { image?: string; path?: string; imagePullPolicy?: string };
  ephemeral?: { persistentVolumeClaim?: { claimName: string; readOnly?: boolean } };
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean; hotpluggable?: boolean };
  dataVolume?: { name: string; hotpluggable?: boolean };
  hostDisk?: { path: string; type?: string; capacity?: string; shared?: boolean };
  emptyDisk?: { capacity: string };
  cloudInitNoCloud?: Record<string, unknown>;
  cloudInitConfigDrive?: Record<string, unknown>;
  configMap?: { name?: string };
  secret?: { secretName?: string };
  downwardAPI?: object;
  serviceAccount?: { serviceAccountName?: string };
  sysprep?: object;
  downwardMetrics?: object;
  /** The target directory of a memory dump (mounted by virt-handler; never a disk). */
  memoryDump?: { claimName: string; readOnly?: boolean; hotpluggable?: boolean };
}

export interface Network {
  name: string;
  pod?: { vmNetworkCIDR?: string };
  multus?: { networkName: string; default?: boolean };
  /** A DRA network (SR-IOV): the launcher passes its VF as an `sriov-<name>` host device. */
  resourceClaim?: ClaimRequest;
}

export interface VolumeStatusEntry {
  name: string;
  target?: string;
  phase?: string;
  hotplugVolume?: object;
}

export interface VirtualMachineInstance {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: {
    domain: DomainSpec;
    volumes?: Volume[];
    networks?: Network[];
    architecture?: string;
    /** DRA claims the pod was given; GPUs and host devices name them by `claimName`. */
    resourceClaims?: { name: string; resourceClaimName?: string; resourceClaimTemplateName?: string }[];
    startStrategy?: string;
    terminationGracePeriodSeconds?: number;
    readinessProbe?: Probe;
    livenessProbe?: Probe;
    subdomain?: string;
    hostname?: string;
  };
  status?: {
    volumeStatus?: VolumeStatusEntry[];
    VSOCKCID?: number;
    interfaces?: { name?: string; podInterfaceName?: string; mac?: string }[];
    /** virt-controller's hints; tscFrequency (Hz) is the node's TSC rate the guest must keep. */
    topologyHints?: { tscFrequency?: number };
  };
}
