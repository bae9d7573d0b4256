// BOOTP/DHCPv4 packet codec (RFC 951 header, RFC 2131 cookie and options, RFC 2132 overload, RFC 3396 long options).
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';
import { formatIPv4, parseIPv4 } from '../addr.js';
import { type Options, Opt, decodeOptionArea, optionAreaLength, writeOptionArea } from './options.js';

export const MAGIC_COOKIE = 0x63825363;
/** Fixed BOOTP header before the cookie. */
const HEADER_LENGTH = 236;
/** RFC 1542: relay agents and old clients expect at least a 300-byte BOOTP message. */
const MIN_PACKET_LENGTH = 300;

export interface DhcpPacket {
  /** 1 BOOTREQUEST, 2 BOOTREPLY. */
  op: number;
  htype: number;
  hlen: number;
  hops: number;
  xid: number;
  secs: number;
  /** Bit 15 is the broadcast flag. */
  flags: number;
  ciaddr: string;
  yiaddr: string;
  siaddr: string;
  giaddr: string;
  /** The first `hlen` bytes of the 16-byte chaddr field. */
  chaddr: Buffer;
  sname: string;
  file: string;
  /** Option values by code, in wire order; repeated codes already concatenated (RFC 3396). */
  options: Options;
}

export const BROADCAST_FLAG = 0x8000;

function readCString(buf: Buffer): string {
  const nul = buf.indexOf(0);
  return buf.subarray(0, nul < 0 ? buf.length : nul).toString('latin1');
}

export function decodeDhcpPacket(data: Uint8Array): DhcpPacket {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.length < HEADER_LENGTH + 4) {
    throw new DhcpDecodeError(`packet of ${buf.length} bytes is shorter than a BOOTP header and cookie`, buf.length);
  }
  const hlen = buf[2] ?? 0;
  if (hlen > 16) throw new DhcpDecodeError(`hardware address length ${hlen} exceeds 16`, 2);
  if (buf.readUInt32BE(HEADER_LENGTH) !== MAGIC_COOKIE) {
    throw new DhcpDecodeError('missing DHCP magic cookie', HEADER_LENGTH);
  }
  const options: Options = new Map();
  decodeOptionArea(buf.subarray(HEADER_LENGTH + 4), HEADER_LENGTH + 4, options);
  // Option 52: the file and/or sname fields carry more options (file first, then sname, per RFC 3396).
  const overload = options.get(Opt.Overload)?.[0] ?? 0;
  if (overload & 1) decodeOptionArea(buf.subarray(108, 236), 108, options);
  if (overload & 2) decodeOptionArea(buf.subarray(44, 108), 44, options);
  return {
    op: buf[0] ?? 0,
    htype: buf[1] ?? 0,
    hlen,
    hops: buf[3] ?? 0,
    xid: buf.readUInt32BE(4),
    secs: buf.readUInt16BE(8),
    flags: buf.readUInt16BE(10),
    ciaddr: formatIPv4(buf, 12),
    yiaddr: formatIPv4(buf, 16),
    siaddr: formatIPv4(buf, 20),
    giaddr: formatIPv4(buf, 24),
    chaddr: Buffer.from(buf.subarray(28, 28 + hlen)),
    sname: overload & 2 ? '' : readCString(buf.subarray(44, 108)),
    file: overload & 1 ? '' : readCString(buf.subarray(108, 236)),
    options,
  };
}

function writeAddress(out: Buffer, offset: number, text: string, field: string): void {
  const a = parseIPv4(text || '0.0.0.0');
  if (!a) throw new DhcpEncodeError(`${field} "${text}" is not an IPv4 address`, 0);
  a.copy(out, offset);
}

export function encodeDhcpPacket(p: DhcpPacket): Buffer {
  // Sized once and written in place: this runs for every reply, and the header is most of it.
  const head = Buffer.alloc(Math.max(MIN_PACKET_LENGTH, HEADER_LENGTH + 4 + optionAreaLength(p.options) + 1));
  if (p.chaddr.length > 16) throw new DhcpEncodeError('chaddr longer than 16 bytes', 0);
  const sname = Buffer.from(p.sname, 'latin1');
  const file = Buffer.from(p.file, 'latin1');
  if (sname.length > 64) throw new DhcpEncodeError('sname longer than 64 bytes', 0);
  if (file.length > 128) throw new DhcpEncodeError('file longer than 128 bytes', 0);
  head[0] = p.op;
  head[1] = p.htype;
  head[2] = p.hlen;
  head[3] = p.hops;
  head.writeUInt32BE(p.xid >>> 0, 4);
  head.writeUInt16BE(p.secs & 0xffff, 8);
  head.writeUInt16BE(p.flags & 0xffff, 10);
  writeAddress(head, 12, p.ciaddr, 'ciaddr');
  writeAddress(head, 16, p.yiaddr, 'yiaddr');
  writeAddress(head, 20, p.siaddr, 'siaddr');
  writeAddress(head, 24, p.giaddr, 'giaddr');
  p.chaddr.copy(head, 28);
  sname.copy(head, 44);
  file.copy(head, 108);
  head.writeUInt32BE(MAGIC_COOKIE, HEADER_LENGTH);
  const end = writeOptionArea(p.options, head, HEADER_LENGTH + 4);
  head[end] = Opt.End;
  return head;
}
