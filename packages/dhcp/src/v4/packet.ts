// BOOTP/DHCPv4 packet codec (RFC 951 header, RFC 2131 cookie and options, RFC 2132 overload, RFC 3396 long options).
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';
import { formatIPv4, parseIPv4 } from '../addr.js';
import { type Options, Opt, decodeOptionArea, optionAreaLength, writeOptionArea } from './options.js';

export const MAGIC_COOKIE = 0x63825363;
/** Fixed BOOTP header before the cookie. */
const HEADER_LENGTH = 236;
/** RFC 1542: relay agents and old clients expect at least a 300-byte BOOTP message. */
const MIN_PACKET_LENGTH = 300;
/** Where the overloadable fields sit in the header, and how many option bytes each holds before its END. */
const SNAME_AT = 44;
const FILE_AT = 108;
export const FILE_OPTION_ROOM = 127;
export const SNAME_OPTION_ROOM = 63;

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
  /**
   * Encoder only: options to carry in the `file` / `sname` fields (RFC 2131 §4.1, option 52). The encoder writes
   * option 52 itself; the decoder always merges these areas into `options`.
   */
  fileOptions?: Options;
  snameOptions?: Options;
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
  if (overload & 1) decodeOptionArea(buf.subarray(FILE_AT, HEADER_LENGTH), FILE_AT, options);
  if (overload & 2) decodeOptionArea(buf.subarray(SNAME_AT, FILE_AT), SNAME_AT, options);
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
    sname: overload & 2 ? '' : readCString(buf.subarray(SNAME_AT, FILE_AT)),
    file: overload & 1 ? '' : readCString(buf.subarray(FILE_AT, HEADER_LENGTH)),
    options,
  };
}

function writeAddress(out: Buffer, offset: number, text: string, field: string): void {
  const a = parseIPv4(text || '0.0.0.0');
  if (!a) throw new DhcpEncodeError(`${field} "${text}" is not an IPv4 address`, 0);
  a.copy(out, offset);
}

/** Option 52's value for the overload areas a packet uses: 1 file, 2 sname, 3 both, 0 none. */
function overloadOf(p: DhcpPacket): number {
  return (p.fileOptions?.size ? 1 : 0) | (p.snameOptions?.size ? 2 : 0);
}

/** Writes one overloaded field: its options from the field's first byte, then END, then PAD to the end. */
function writeOverloadArea(out: Buffer, at: number, room: number, options: Options, field: string): void {
  if (optionAreaLength(options) > room) {
    throw new DhcpEncodeError(`options overloaded into ${field} need more than its ${room} bytes`, Opt.Overload);
  }
  out[writeOptionArea(options, out, at)] = Opt.End;
}

export function encodeDhcpPacket(p: DhcpPacket): Buffer {
  const overload = overloadOf(p);
  if (overload !== 0 && p.options.has(Opt.Overload)) {
    throw new DhcpEncodeError('option 52 is written by the encoder when file/sname carry options', Opt.Overload);
  }
  if (overload & 1 && p.file !== '') throw new DhcpEncodeError('file holds a name and options at once', 0);
  if (overload & 2 && p.sname !== '') throw new DhcpEncodeError('sname holds a name and options at once', 0);
  const mainLength = optionAreaLength(p.options) + (overload ? 3 : 0);
  // Sized once and written in place: this runs for every reply, and the header is most of it.
  const head = Buffer.alloc(Math.max(MIN_PACKET_LENGTH, HEADER_LENGTH + 4 + mainLength + 1));
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
  sname.copy(head, SNAME_AT);
  file.copy(head, FILE_AT);
  head.writeUInt32BE(MAGIC_COOKIE, HEADER_LENGTH);
  let end = writeOptionArea(p.options, head, HEADER_LENGTH + 4);
  if (overload) {
    head[end] = Opt.Overload;
    head[end + 1] = 1;
    head[end + 2] = overload;
    end += 3;
    // Buffer.alloc zero-filled both fields, and zero is PAD: only the options and END need writing.
    if (p.fileOptions?.size) writeOverloadArea(head, FILE_AT, FILE_OPTION_ROOM, p.fileOptions, 'file');
    if (p.snameOptions?.size) writeOverloadArea(head, SNAME_AT, SNAME_OPTION_ROOM, p.snameOptions, 'sname');
  }
  head[end] = Opt.End;
  return head;
}
