// Turns the wire ConverterContext into the facts configurators read. Pure: every left-out field gets a
// fixed fallback here; probing the host is hostContextDefaults()' job, never this one's.
import type { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { archFacts, type ArchFacts } from './arch.js';
import { crossArchGuest, type CrossArchGuest } from './cross-arch.js';
import { resolvePaths, type ResolvedPaths } from './paths.js';
import { ioThreadPlan, memfdRequired, topologyOf, vcpuCount, type IoThreadPlan, type Topology } from './plan.js';

export interface LibvirtVersion {
  major: number;
  minor: number;
  micro: number;
}

export interface Resolved {
  raw: ConverterContext;
  arch: ArchFacts;
  /** The emulated guest when the VMI's architecture is not the host's (cross-architecture emulation). */
  crossArch?: CrossArchGuest;
  paths: ResolvedPaths;
  allowEmulation: boolean;
  hypervisorDeviceAvailable: boolean;
  /** virtio-non-transitional, virtio-transitional or (s390x) virtio. */
  virtioModel: string;
  launchSecurity: boolean;
  libvirtVersion?: LibvirtVersion;
  hotplugPorts: boolean;
  topology: Topology;
  /** Running vCPUs (disk and NIC queues use it). */
  vcpus: number;
  ioThreads: IoThreadPlan;
  memfdRequired: boolean;
}

// A launcher passes the same version on every conversion: keep the last answer (frozen, so sharing it
// between conversions is safe) rather than run the regex each time.
let lastVersion: { text: string | undefined; version: LibvirtVersion | undefined } = { text: '', version: undefined };

export function parseLibvirtVersion(text: string | undefined): LibvirtVersion | undefined {
  if (text === lastVersion.text) return lastVersion.version;
  const match = text ? /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(text) : null;
  const version = match
    ? Object.freeze({ major: Number(match[1]), minor: Number(match[2]), micro: Number(match[3] ?? 0) })
    : undefined;
  lastVersion = { text, version };
  return version;
}

/** True when the context's libvirt is older than major.minor (an unknown version counts as new). */
export function libvirtOlderThan(ctx: Resolved, major: number, minor: number): boolean {
  const v = ctx.libvirtVersion;
  if (!v) return false;
  return v.major < major || (v.major === major && v.minor < minor);
}

export function resolveContext(raw: ConverterContext, vmi: VirtualMachineInstance): Resolved {
  // Under cross-architecture emulation the domain is built for the guest's architecture (KubeVirt's launcher
  // picks the guest's arch converter then); the refusal of a foreign VMI without the switch comes first.
  const crossArch = crossArchGuest(raw, vmi);
  const arch = archFacts(crossArch?.arch ?? (raw.architecture || undefined));
  const transitional = raw.useVirtioTransitional || vmi.spec.domain.devices.useVirtioTransitional === true;
  const virtioModel =
    arch.arch === 's390x' ? 'virtio' : transitional ? 'virtio-transitional' : 'virtio-non-transitional';
  const topology = topologyOf(vmi);
  const vcpus = vcpuCount(topology);
  return {
    raw,
    arch,
    crossArch,
    paths: resolvePaths(raw.paths, raw.nonRoot),
    allowEmulation: raw.allowEmulation ?? false,
    hypervisorDeviceAvailable: raw.hypervisorDeviceAvailable ?? true,
    virtioModel,
    // A VMI asking for SEV needs the same IOMMU-backed virtio devices as the launcher's flags ask for.
    // s390x Secure Execution is an empty launchSecurity on an s390x VMI (as KubeVirt reads it).
    launchSecurity:
      raw.useLaunchSecuritySev ||
      raw.useLaunchSecurityPv ||
      vmi.spec.domain.launchSecurity?.sev !== undefined ||
      (arch.arch === 's390x' && vmi.spec.domain.launchSecurity !== undefined),
    libvirtVersion: parseLibvirtVersion(raw.libvirtVersion),
    hotplugPorts: raw.hotplugPorts ?? true,
    topology,
    vcpus,
    ioThreads: ioThreadPlan(vmi),
    memfdRequired: memfdRequired(vmi, arch),
  };
}
