// DHCPv4 option codes (RFC 2132 and later) and the TLV area codec, with RFC 3396 long options:
// a value longer than 255 bytes is written as consecutive instances of the same code, and every instance of a code
// found while parsing is concatenated back into one value, in options/file/sname order.
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';

export const Opt = {
  Pad: 0,
  SubnetMask: 1,
  Router: 3,
  DnsServers: 6,
  HostName: 12,
  DomainName: 15,
  InterfaceMtu: 26,
  NtpServers: 42,
  RequestedIp: 50,
  LeaseTime: 51,
  Overload: 52,
  MessageType: 53,
  ServerId: 54,
  ParameterRequestList: 55,
  Message: 56,
  MaxMessageSize: 57,
  ClientId: 61,
  TftpServerName: 66,
  BootfileName: 67,
  DomainSearch: 119,
  ClasslessRoutes: 121,
  End: 255,
} as const;

export const MessageType = {
  Discover: 1,
  Offer: 2,
  Request: 3,
  Decline: 4,
  Ack: 5,
  Nak: 6,
  Release: 7,
  Inform: 8,
} as const;

export type Options = Map<number, Buffer>;

/** Bytes the TLVs of `options` take on the wire, long values split per RFC 3396. */
export function optionAreaLength(options: Options): number {
  let n = 0;
  for (const value of options.values()) n += value.length + 2 * Math.max(1, Math.ceil(value.length / 255));
  return n;
}

/** Writes the TLVs of `options` (in map order) at `offset`, splitting long values; returns the end offset. */
export function writeOptionArea(options: Options, out: Buffer, offset: number): number {
  let at = offset;
  for (const [code, value] of options) {
    if (!Number.isInteger(code) || code <= Opt.Pad || code >= Opt.End) {
      throw new DhcpEncodeError(`option code ${code} cannot carry a value`, code);
    }
    let from = 0;
    do {
      const len = Math.min(255, value.length - from);
      out[at] = code;
      out[at + 1] = len;
      value.copy(out, at + 2, from, from + len);
      at += 2 + len;
      from += len;
    } while (from < value.length);
  }
  return at;
}

/**
 * Reads one TLV area (options field, or file/sname when overloaded) into `into`, concatenating repeated codes.
 * A missing END is tolerated (the area simply ends); a TLV running past the area is an error.
 */
export function decodeOptionArea(area: Buffer, baseOffset: number, into: Options): void {
  let i = 0;
  while (i < area.length) {
    const code = area[i] ?? Opt.End;
    if (code === Opt.End) return;
    if (code === Opt.Pad) {
      i++;
      continue;
    }
    const len = area[i + 1];
    if (len === undefined || i + 2 + len > area.length) {
      throw new DhcpDecodeError(`option ${code} runs past the end of its area`, baseOffset + i);
    }
    const value = area.subarray(i + 2, i + 2 + len);
    const prev = into.get(code);
    into.set(code, prev ? Buffer.concat([prev, value]) : Buffer.from(value));
    i += 2 + len;
  }
}
