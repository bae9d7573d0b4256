// Address helpers: dotted quads, CIDRs, MACs and IPv6 text <-> bytes. Strict: anything odd is rejected.
import { isIPv6 } from 'node:net';

export function parseIPv4(text: string): Buffer | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = Buffer.alloc(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i] ?? '';
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return undefined;
    out[i] = Number(p);
  }
  return out;
}

export function formatIPv4(bytes: Uint8Array, offset = 0): string {
  return `${bytes[offset]}.${bytes[offset + 1]}.${bytes[offset + 2]}.${bytes[offset + 3]}`;
}

export interface Cidr4 {
  address: Buffer;
  prefix: number;
}

export function parseCidr4(text: string): Cidr4 | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseIPv4(text.slice(0, slash));
  const p = text.slice(slash + 1);
  if (!address || !/^\d{1,2}$/.test(p) || Number(p) > 32) return undefined;
  return { address, prefix: Number(p) };
}

export function prefixToMask(prefix: number): Buffer {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const out = Buffer.alloc(4);
  out.writeUInt32BE(mask);
  return out;
}

export function parseMac(text: string): Buffer | undefined {
  if (!/^[0-9a-f]{2}([:-][0-9a-f]{2}){5}$/i.test(text)) return undefined;
  return Buffer.from(text.replace(/[:-]/g, ''), 'hex');
}

const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Lower-case hex pairs joined by colons; a table lookup per byte, since every logged packet names its MAC. */
export function formatMac(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) text += (i === 0 ? '' : ':') + HEX_BYTE[bytes[i] ?? 0];
  return text;
}

export function parseIPv6(text: string): Buffer | undefined {
  if (!isIPv6(text) || text.includes('%')) return undefined;
  let head = text;
  let tailV4: Buffer | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tailV4 = parseIPv4(text.slice(lastColon + 1));
    if (!tailV4) return undefined;
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const [left = '', right] = head.split('::');
  const l = left ? left.split(':') : [];
  const r = right !== undefined && right !== '' ? right.split(':') : [];
  const fill = right === undefined ? 0 : 8 - l.length - r.length;
  const groups = [...l, ...Array<string>(fill).fill('0'), ...r];
  if (groups.length !== 8) return undefined;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  if (tailV4) tailV4.copy(out, 12);
  return out;
}

export function parseCidr6(text: string): { address: Buffer; prefix: number } | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseIPv6(text.slice(0, slash));
  const p = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(p) || Number(p) > 128) return undefined;
  return { address, prefix: Number(p) };
}
