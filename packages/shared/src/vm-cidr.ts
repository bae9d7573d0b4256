// Address arithmetic for the masquerade VM networks (gateway = network+1, guest = network+2) in both families,
// done on bigints so IPv4 and IPv6 share one path. Both sides need it the same way, as in KubeVirt (whose node
// side gives the bridge the gateway address and whose launcher hands the guest its address from one CIDR).
import { isIPv4, isIPv6 } from 'node:net';

/** A VM network CIDR (or an address in one) that cannot be used, with the text and why. */
export class VmCidrError extends Error {
  constructor(
    readonly cidr: string,
    readonly reason: string,
  ) {
    super(`invalid VM network CIDR "${cidr}": ${reason}`);
    this.name = 'VmCidrError';
  }
}

export type Family = 4 | 6;

export interface Cidr {
  family: Family;
  network: bigint;
  prefix: number;
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

export function parseAddress(text: string): { family: Family; value: bigint } {
  if (isIPv4(text)) {
    return { family: 4, value: text.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n) };
  }
  if (isIPv6(text) && !text.includes('.') && !text.includes('%')) {
    const [head = '', tail] = text.split('::');
    const left = head === '' ? [] : head.split(':');
    const right = tail === undefined || tail === '' ? [] : tail.split(':');
    const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
    return { family: 6, value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n) };
  }
  throw new VmCidrError(text, 'not an IPv4 or IPv6 address');
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run of 2+ groups as "::"). */
export function formatAddress(family: Family, value: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => Number((value >> s) & 0xffn)).join('.');
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => Number((value >> s) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Parses "a.b.c.d/n" or "x::/n" for the given family; host bits are masked off as Go's net.ParseCIDR does. */
export function parseVmCidr(text: string, family: Family): Cidr {
  const slash = text.indexOf('/');
  if (slash < 0) throw new VmCidrError(text, 'missing "/prefix"');
  const { family: got, value } = parseAddress(text.slice(0, slash));
  if (got !== family) throw new VmCidrError(text, `expected an IPv${family} network`);
  const prefixText = text.slice(slash + 1);
  const bits = BITS[family];
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
    throw new VmCidrError(text, `prefix must be 0..${bits}`);
  }
  const prefix = Number(prefixText);
  // KubeVirt needs a gateway and a guest: at least 2 host addresses.
  if (prefix > bits - 2)
    throw new VmCidrError(text, 'VM CIDR subnet is too small, at least 2 host addresses are required');
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  return { family, network: value & ~hostMask, prefix };
}

/** The n-th address of the network (1 = gateway, 2 = guest). */
export function hostAt(cidr: Cidr, n: number): string {
  return formatAddress(cidr.family, cidr.network + BigInt(n));
}

/** Go's IP.IsGlobalUnicast: not unspecified, loopback, link-local, multicast or (v4) limited broadcast. */
export function isGlobalUnicast(text: string): boolean {
  const { family, value } = parseAddress(text);
  if (family === 4) {
    const first = Number(value >> 24n);
    return value !== 0n && value !== 0xffffffffn && first !== 127 && first < 224 && value >> 16n !== 0xa9fen;
  }
  const top16 = value >> 112n;
  return value !== 0n && value !== 1n && top16 >> 8n !== 0xffn && (top16 & 0xffc0n) !== 0xfe80n;
}

/** KubeVirt's defaults for the pod network's vmNetworkCIDR and vmIPv6NetworkCIDR. */
export const DEFAULT_VM_CIDR: Record<Family, string> = { 4: '10.0.2.0/24', 6: 'fd10:0:2::/120' };
