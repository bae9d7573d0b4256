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

/** Appends the TLVs of `options` (in map order) to `out`, splitting long values per RFC 3396. */
export function encodeOptionArea(options: Options, out: number[]): void {
  for (const [code, value] of options) {
    if (!Number.isInteger(code) || code <= Opt.Pad || code >= Opt.End) {
      throw new DhcpEncodeError(`option code ${code} cannot carry a value`, code);
    }
    if (value.length === 0) {
      out.push(code, 0);
      continue;
    }
    for (let at = 0; at < value.length; at += 255) {
      const chunk = value.subarray(at, at + 255);
      out.push(code, chunk.length, ...chunk);
    }
  }
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
