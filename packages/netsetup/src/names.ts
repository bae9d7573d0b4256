// KubeVirt's link naming for a pod interface (docs/masquerade.md#link-names).
import { InvalidRequestError } from './errors.js';

export const BRIDGE_MAC = '02:00:00:00:00:00';
export const NFT_TABLE = 'nat';
/** Linux IFNAMSIZ - 1. */
const MAX_IFNAME = 15;

/** `k6t-` + the pod interface name without a leading "pod" (k6t-eth0, k6t-<hash11>). */
export function bridgeNameFor(podIface: string): string {
  return `k6t-${podIface.replace(/^pod/, '')}`;
}

/** tap0 for the pod network; `tap` + name[3:] for a secondary network (pod<hash11>, net<N>). */
export function tapNameFor(podIface: string): string {
  return /^pod/.test(podIface) || /^net\d+$/.test(podIface) ? `tap${podIface.slice(3)}` : 'tap0';
}

/**
 * Linux refuses whitespace, '/' and ':' in a link name. Quotes, '#' and '\\' it allows, but `ip -batch` (which
 * every change and the discovery go through) reads them as quoting and comments, so they are refused too.
 */
export function checkIfname(name: string, what: string): string {
  if (name.length === 0 || name.length > MAX_IFNAME || /[\s/:"'#\\]/.test(name) || name === '.' || name === '..') {
    throw new InvalidRequestError(`${what} name "${name}" is not a valid Linux interface name`);
  }
  return name;
}
