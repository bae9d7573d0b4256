// KubeVirt's names for the links of a secondary (Multus) network. Since v1.x new pods no longer number them
// (net1, tap1, ...): every link is named after the first 11 hex digits of SHA-256 of the VMI's network name, so the
// names stay stable when networks are hot-plugged or unplugged and still fit IFNAMSIZ with a "-nic" suffix.
import { createHash } from 'node:crypto';

const HASH_HEX_DIGITS = 11;

/** The 11 hex digits every link of a secondary network is named with. */
export function secondaryNetworkHash(networkName: string): string {
  return createHash('sha256').update(networkName).digest('hex').slice(0, HASH_HEX_DIGITS);
}

/** The pod interface Multus creates for a secondary network: `pod<hash11>`. */
export function secondaryPodIfaceName(networkName: string): string {
  return `pod${secondaryNetworkHash(networkName)}`;
}

/** The tap the guest's NIC on a secondary network is plugged into: `tap<hash11>`. */
export function secondaryTapName(networkName: string): string {
  return `tap${secondaryNetworkHash(networkName)}`;
}

/**
 * What the bridge binding renames the pod interface to once it is a bridge port: `eth0-nic`, `<hash11>-nic`
 * (KubeVirt's GenerateNewBridgedVmiInterfaceName in pkg/network/link).
 */
export function bridgedNicName(podIface: string): string {
  return `${podIface.replace(/^pod/, '')}-nic`;
}

/**
 * The link-local address a bridge carries as its DHCP server's identity: "169.254.75.1" followed by the
 * interface's position in the VMI, so the first NIC's is 169.254.75.10 (KubeVirt's GetFakeBridgeIP). Positions
 * past 15 would leave the address range KubeVirt's formula was made for, so they are refused.
 */
export function fakeBridgeIp(interfaceIndex: number): string {
  if (!Number.isInteger(interfaceIndex) || interfaceIndex < 0 || interfaceIndex > 15) {
    throw new RangeError(`interface index ${interfaceIndex} is out of range 0..15`);
  }
  return `169.254.75.1${interfaceIndex}`;
}
