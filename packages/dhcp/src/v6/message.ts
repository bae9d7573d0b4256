// DHCPv6 message codec (RFC 8415 §8, §21): client/server messages with their option TLVs. Relay messages are
// recognised and rejected as such, so a relayed packet can never be mistaken for a client one.
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';

export const V6Type = {
  Solicit: 1,
  Advertise: 2,
  Request: 3,
  Confirm: 4,
  Renew: 5,
  Rebind: 6,
  Reply: 7,
  Release: 8,
  Decline: 9,
  Reconfigure: 10,
  InformationRequest: 11,
  RelayForward: 12,
  RelayReply: 13,
} as const;

export const V6Opt = {
  ClientId: 1,
  ServerId: 2,
  IaNa: 3,
  IaAddr: 5,
  OptionRequest: 6,
  ElapsedTime: 8,
  StatusCode: 13,
  RapidCommit: 14,
  DnsServers: 23,
} as const;

export const V6Status = { Success: 0, NoAddrsAvail: 2, NotOnLink: 4 } as const;

export interface V6Option {
  code: number;
  value: Buffer;
}

export interface Dhcpv6Message {
  msgType: number;
  /** 24-bit transaction id. */
  transactionId: number;
  options: V6Option[];
}

export function decodeV6Options(data: Buffer, base: number): V6Option[] {
  const options: V6Option[] = [];
  let i = 0;
  while (i < data.length) {
    if (i + 4 > data.length) throw new DhcpDecodeError('truncated DHCPv6 option header', base + i);
    const code = data.readUInt16BE(i);
    const len = data.readUInt16BE(i + 2);
    if (i + 4 + len > data.length) throw new DhcpDecodeError(`DHCPv6 option ${code} runs past the end`, base + i);
    options.push({ code, value: Buffer.from(data.subarray(i + 4, i + 4 + len)) });
    i += 4 + len;
  }
  return options;
}

export function encodeV6Options(options: readonly V6Option[]): Buffer {
  const parts: Buffer[] = [];
  for (const o of options) {
    if (o.value.length > 0xffff) throw new DhcpEncodeError(`DHCPv6 option ${o.code} longer than 65535`, o.code);
    const head = Buffer.alloc(4);
    head.writeUInt16BE(o.code, 0);
    head.writeUInt16BE(o.value.length, 2);
    parts.push(head, o.value);
  }
  return Buffer.concat(parts);
}

export function decodeDhcpv6Message(data: Uint8Array): Dhcpv6Message {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.length < 4) throw new DhcpDecodeError('DHCPv6 message shorter than 4 bytes', buf.length);
  const msgType = buf[0] ?? 0;
  if (msgType === V6Type.RelayForward || msgType === V6Type.RelayReply) {
    throw new DhcpDecodeError('relay messages are not served (the guest is on the link)', 0);
  }
  return { msgType, transactionId: buf.readUIntBE(1, 3), options: decodeV6Options(buf.subarray(4), 4) };
}

export function encodeDhcpv6Message(m: Dhcpv6Message): Buffer {
  const head = Buffer.alloc(4);
  head[0] = m.msgType;
  head.writeUIntBE(m.transactionId & 0xffffff, 1, 3);
  return Buffer.concat([head, encodeV6Options(m.options)]);
}

export function findV6(options: readonly V6Option[], code: number): Buffer | undefined {
  return options.find((o) => o.code === code)?.value;
}

export interface IaNa {
  iaid: number;
  t1: number;
  t2: number;
  options: V6Option[];
}

export function decodeIaNa(value: Buffer): IaNa {
  if (value.length < 12) throw new DhcpDecodeError('IA_NA shorter than 12 bytes', 0);
  return {
    iaid: value.readUInt32BE(0),
    t1: value.readUInt32BE(4),
    t2: value.readUInt32BE(8),
    options: decodeV6Options(value.subarray(12), 12),
  };
}

export function encodeIaNa(ia: IaNa): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt32BE(ia.iaid >>> 0, 0);
  head.writeUInt32BE(ia.t1 >>> 0, 4);
  head.writeUInt32BE(ia.t2 >>> 0, 8);
  return Buffer.concat([head, encodeV6Options(ia.options)]);
}

export function encodeIaAddr(address: Buffer, preferred: number, valid: number): Buffer {
  const out = Buffer.alloc(24);
  address.copy(out, 0);
  out.writeUInt32BE(preferred >>> 0, 16);
  out.writeUInt32BE(valid >>> 0, 20);
  return out;
}

export function encodeStatus(code: number, message: string): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16BE(code);
  return Buffer.concat([out, Buffer.from(message, 'utf8')]);
}
