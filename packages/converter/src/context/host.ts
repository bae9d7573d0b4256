// The facts this machine implies for fields a context leaves out. This is the only place that probes
// the host (/dev/kvm, process.arch, the libvirt client's version); convert() never does.
import { execFileSync } from 'node:child_process';
import { secondaryTapName } from '@virt-launcher/shared';
import { existsSync } from 'node:fs';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import type { VirtualMachineInstance } from '../vmi/types.js';
import { goArch } from './arch.js';

function libvirtClientVersion(): string | undefined {
  try {
    const out = execFileSync('virsh', ['--version'], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return /^\d+\.\d+\.\d+/.exec(out.trim())?.[0];
  } catch {
    return undefined;
  }
}

/**
 * KubeVirt's pod interface naming (packages/netsetup/docs/bridge.md#names): the pod network's NIC is plugged into
 * tap0; a secondary Multus network's into `tap<hash11>` of its pod interface `pod<hash11>` (the hashed scheme new
 * pods get; the ordinal tap1, tap2, ... of older pods is not produced).
 */
export function defaultPodInterfaces(vmi: VirtualMachineInstance): ConverterContext['podInterfaces'] {
  const out: ConverterContext['podInterfaces'] = {};
  for (const net of vmi.spec.networks ?? []) {
    const iface = vmi.spec.domain.devices.interfaces?.find((i) => i.name === net.name);
    const isPod = net.pod !== undefined || net.multus?.default === true;
    const tapName = isPod ? 'tap0' : secondaryTapName(net.name);
    if (iface && (iface.masquerade || iface.bridge)) out[net.name] = { tapName, mac: '', mtu: 0 };
  }
  return out;
}

/** Host facts as a context: architecture (also as the host's), KVM or emulation, libvirt version (+ pod taps for a VMI). */
export function hostContextDefaults(vmi?: VirtualMachineInstance): ConverterContext {
  const kvm = existsSync('/dev/kvm');
  return ConverterContext.fromPartial({
    architecture: goArch(process.arch),
    hostArchitecture: goArch(process.arch),
    hypervisorDeviceAvailable: kvm,
    allowEmulation: !kvm,
    libvirtVersion: libvirtClientVersion(),
    podInterfaces: vmi ? defaultPodInterfaces(vmi) : {},
  });
}

/** Fills what `context` left out from `defaults`; everything `context` states wins. */
export function withDefaults(context: ConverterContext, defaults: ConverterContext): ConverterContext {
  return {
    ...context,
    architecture: context.architecture ?? defaults.architecture,
    // A context that names its architecture without cross-architecture emulation describes a host of that
    // architecture (KubeVirt's launcher builds for the host's unless it emulates another).
    hostArchitecture:
      context.hostArchitecture ||
      (context.architecture && !context.allowCrossArchEmulation ? context.architecture : defaults.hostArchitecture),
    allowEmulation: context.allowEmulation ?? defaults.allowEmulation,
    hypervisorDeviceAvailable: context.hypervisorDeviceAvailable ?? defaults.hypervisorDeviceAvailable,
    libvirtVersion: context.libvirtVersion ?? defaults.libvirtVersion,
    hotplugPorts: context.hotplugPorts ?? defaults.hotplugPorts,
    paths: context.paths ?? defaults.paths,
    podInterfaces: { ...defaults.podInterfaces, ...context.podInterfaces },
    domainAttachmentByInterfaceName: {
      ...defaults.domainAttachmentByInterfaceName,
      ...context.domainAttachmentByInterfaceName,
    },
  };
}
