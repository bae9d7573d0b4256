// Names and fixed addresses of the bridge binding, as KubeVirt v1.9 gives them (docs/bridge.md#names).
import { createHash } from 'node:crypto';
import { bridgedNicName, fakeBridgeIp, secondaryPodIfaceName } from '@virt-launcher/shared';
import { InvalidRequestError } from '../errors.js';

/** The pod network's interface in the pod; secondary (Multus) networks get a hashed name. */
export const PRIMARY_POD_IFACE = 'eth0';
/** `pod` + the first 11 hex digits of SHA-256(network name): a secondary network's pod interface. */
export const hashedPodIfaceName = secondaryPodIfaceName;

/** What the pod interface is renamed to once it becomes a bridge port: `eth0-nic`, `<hash11>-nic`. */
export const bridgedNicNameFor = bridgedNicName;

/**
 * The link-local /32 the bridge carries when the guest gets an IPv4 lease: the DHCP server's identity (shared's
 * fakeBridgeIp, whose range error is the request's mistake here).
 */
export function fakeBridgeIpFor(interfaceIndex: number): string {
  try {
    return fakeBridgeIp(interfaceIndex);
  } catch (err) {
    throw new InvalidRequestError((err as Error).message);
  }
}

/**
 * The MAC the bridge and its pod-side port share. The pod's own MAC is left for the guest (the DHCP server answers
 * only it), so the port must take another one; it is derived from the pod's, so a plan is the same every time.
 */
export function bridgePortMacFor(podIface: string, podMac: string): string {
  const digest = createHash('sha256').update(`${podIface}/${podMac}`).digest();
  // 0x02: locally administered, unicast.
  const bytes = [0x02, ...digest.subarray(0, 5)];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/;

export function checkMac(mac: string, what: string): string {
  const lower = mac.toLowerCase();
  if (!MAC.test(lower)) throw new InvalidRequestError(`${what} "${mac}" is not a MAC address`);
  return lower;
}
