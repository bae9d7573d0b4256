// convert(vmi, context): runs the configurators in KubeVirt's order on an empty domain. Pure: the
// same VMI and context always give the same domain, and nothing outside them is read.
import { balloon } from './configurators/balloon.js';
import { channels } from './configurators/channels.js';
import { clock } from './configurators/clock.js';
import type { Configurator } from './configurators/configurator.js';
import { consoleSerial } from './configurators/console.js';
import { controllers } from './configurators/controllers.js';
import { cpuPinning } from './configurators/cpu-pinning.js';
import { cpu } from './configurators/cpu.js';
import { disks } from './configurators/disks.js';
import { features } from './configurators/features.js';
import { filesystems } from './configurators/filesystems.js';
import { graphics } from './configurators/graphics.js';
import { hostDevices } from './configurators/host-devices.js';
import { hotplugPorts } from './configurators/hotplug-ports.js';
import { hypervisor } from './configurators/hypervisor.js';
import { inputs } from './configurators/inputs.js';
import { interfaces } from './configurators/interfaces.js';
import { iothreads } from './configurators/iothreads.js';
import { launchSecurity } from './configurators/launch-security.js';
import { libvirtCompat } from './configurators/libvirt-compat.js';
import { memoryBacking } from './configurators/memory-backing.js';
import { memory } from './configurators/memory.js';
import { metadata } from './configurators/metadata.js';
import { numaPassthrough } from './configurators/numa-passthrough.js';
import { os } from './configurators/os.js';
import { panic } from './configurators/panic.js';
import { pciNumaPlacement } from './configurators/pci-numa-placement.js';
import { qemuCommandline } from './configurators/qemu-commandline.js';
import { realtime } from './configurators/realtime.js';
import { rebootPolicy } from './configurators/reboot-policy.js';
import { rng } from './configurators/rng.js';
import { sound } from './configurators/sound.js';
import { sysinfo } from './configurators/sysinfo.js';
import { tpm } from './configurators/tpm.js';
import { unsupported } from './configurators/unsupported.js';
import { usbRedirection } from './configurators/usb-redirection.js';
import { vsock } from './configurators/vsock.js';
import { watchdog } from './configurators/watchdog.js';
import { resolveContext } from './context/resolve.js';
import { emptyDomain, type Domain } from './domain/types.js';
import type { ConverterContext } from './gen/virtlauncher/converter/v1/converter.js';
import type { VirtualMachineInstance } from './vmi/types.js';

/**
 * What cannot be built is refused first; then KubeVirt's configurator order (CPU pinning where KubeVirt
 * adjusts the domain for the CPU set, once the IOThreads are known; PCI NUMA placement after the guest
 * NUMA cells, as KubeVirt places devices after that adjustment), then the steps its domain manager
 * runs after the converter.
 */
export const CONFIGURATORS: readonly Configurator[] = [
  unsupported,
  metadata,
  interfaces,
  tpm,
  vsock,
  channels,
  clock,
  rng,
  inputs,
  balloon,
  graphics,
  sound,
  hostDevices,
  watchdog,
  consoleSerial,
  panic,
  features,
  sysinfo,
  os,
  filesystems,
  disks,
  usbRedirection,
  controllers,
  qemuCommandline,
  cpu,
  iothreads,
  cpuPinning,
  realtime,
  memory,
  memoryBacking,
  numaPassthrough,
  launchSecurity,
  rebootPolicy,
  hypervisor,
  pciNumaPlacement,
  hotplugPorts,
  libvirtCompat,
];

export function convert(vmi: VirtualMachineInstance, context: ConverterContext): Domain {
  const ctx = resolveContext(context, vmi);
  const domain = emptyDomain();
  for (const step of CONFIGURATORS) step.configure(vmi, domain, ctx);
  return domain;
}
