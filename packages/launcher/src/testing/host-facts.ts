// The host a converter test describes unless it says otherwise: an x86_64 node without a usable /dev/kvm, no
// tap0 yet, no block volumes or container disks, libvirt 9.0 (Debian 12's). Tests override what they are about.
import type { HostFacts } from '../domain/sync/build-context.js';

export function testHostFacts(over: Partial<HostFacts> = {}): HostFacts {
  return {
    nodeArch: 'x64',
    hypervisorDeviceAvailable: false,
    blockVolumes: {},
    tap0Mtu: undefined,
    containerDisks: {},
    libvirtVersion: '9.0.0',
    ...over,
  };
}
