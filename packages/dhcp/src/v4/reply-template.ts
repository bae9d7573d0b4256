// Replies of one kind are the same bytes for every request but for a few header fields. The guest repeats the same
// requests (DISCOVER, REQUEST, renewals, retries), so each kind is fitted and encoded once and later replies copy
// those bytes and write the request's own fields in. That keeps option fitting, Map building and address parsing
// out of the path between a request's arrival and its reply, where they cost more than the rest of it together.
import { DhcpEncodeError } from '../errors.js';
import { parseIPv4 } from '../addr.js';
import { type DhcpPacket, encodeDhcpPacket } from './packet.js';
import { type FittedOptions, fitReply } from './fit.js';
import { Opt, type Options } from './options.js';
import type { PreparedV4 } from './prepare.js';

/** What was done to make a reply fit the client's size limit, for the log. */
export interface FitReport {
  limit: number;
  /** Codes carried (in whole or in part) in the file and sname fields (option 52). */
  inFile: number[];
  inSname: number[];
  dropped: number[];
  searchDomainsKept?: number;
}

/** One kind of reply, fitted and encoded. Shared by every decision that uses it: read only. */
export interface ReplyTemplate {
  options: Options;
  fileOptions: Options;
  snameOptions: Options;
  /** Set when options were moved to file/sname or left out. */
  fit: FitReport | undefined;
  /** The encoded reply with htype, hlen, xid, flags, ciaddr, giaddr and chaddr zero. */
  wire: Buffer;
}

const ZERO = '0.0.0.0';
/** Header offsets of the per-request fields (RFC 2131 §2). */
const AT = { htype: 1, hlen: 2, xid: 4, flags: 10, ciaddr: 12, giaddr: 24, chaddr: 28 } as const;
const CHADDR_LENGTH = 16;

/** Kinds remembered per configuration; a client sending ever new size limits or option 55 lists only refills it. */
const MAX_TEMPLATES = 64;
const templates = new WeakMap<PreparedV4, Map<string, ReplyTemplate>>();

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function fitReport(limit: number, fitted: FittedOptions): FitReport | undefined {
  if (fitted.dropped.length === 0 && fitted.fileOptions.size + fitted.snameOptions.size === 0) return undefined;
  return {
    limit,
    inFile: [...fitted.fileOptions.keys()],
    inSname: [...fitted.snameOptions.keys()],
    dropped: fitted.dropped,
    ...(fitted.searchDomainsKept !== undefined ? { searchDomainsKept: fitted.searchDomainsKept } : {}),
  };
}

function build(p: PreparedV4, type: number, withLease: boolean, limit: number, prl: Buffer | undefined): ReplyTemplate {
  const fixed: Options = new Map();
  fixed.set(Opt.MessageType, Buffer.from([type]));
  fixed.set(Opt.ServerId, parseIPv4(p.serverIp) ?? Buffer.alloc(4));
  if (withLease) fixed.set(Opt.LeaseTime, u32(p.leaseSeconds));
  const fitted = fitReply({
    fixed,
    configured: p.options,
    searchDomains: p.searchDomains,
    requested: prl ? new Set(prl) : undefined,
    limit,
  });
  const wire = encodeDhcpPacket({
    op: 2,
    htype: 0,
    hlen: 0,
    hops: 0,
    xid: 0,
    secs: 0,
    flags: 0,
    ciaddr: ZERO,
    yiaddr: withLease ? p.clientIp : ZERO,
    siaddr: ZERO,
    giaddr: ZERO,
    chaddr: Buffer.alloc(0),
    sname: '',
    file: '',
    options: fitted.options,
    fileOptions: fitted.fileOptions,
    snameOptions: fitted.snameOptions,
  });
  return { ...fitted, fit: fitReport(limit, fitted), wire };
}

/**
 * The OFFER or ACK (not NAK: its message differs per request) for a request with this size limit and option 55.
 * A reply that fits without leaving anything out has the same layout whatever the client asked for, so it is kept
 * under the limit alone and serves every option 55 list.
 */
export function replyTemplate(
  p: PreparedV4,
  type: number,
  withLease: boolean,
  limit: number,
  prl: Buffer | undefined,
): ReplyTemplate {
  let cache = templates.get(p);
  if (!cache) templates.set(p, (cache = new Map()));
  const kind = `${type}/${withLease ? 1 : 0}/${limit}`;
  const hit = cache.get(kind) ?? cache.get(`${kind}/${prl ? prl.toString('hex') : '-'}`);
  if (hit) return hit;
  const made = build(p, type, withLease, limit, prl);
  if (cache.size >= MAX_TEMPLATES) cache.clear();
  // Dropping and shortening follow option 55; spilling into file/sname does not.
  const whole = made.fit === undefined || (made.fit.dropped.length === 0 && made.fit.searchDomainsKept === undefined);
  cache.set(whole ? kind : `${kind}/${prl ? prl.toString('hex') : '-'}`, made);
  return made;
}

function writeAddress(out: Buffer, at: number, text: string, field: string): void {
  if (text === ZERO || text === '') return;
  const bytes = parseIPv4(text);
  if (!bytes) throw new DhcpEncodeError(`${field} "${text}" is not an IPv4 address`, 0);
  bytes.copy(out, at);
}

/** A copy of `wire` with the request's own fields of `packet` written in: the bytes encodeDhcpPacket(packet) gives. */
export function fillTemplate(wire: Buffer, packet: DhcpPacket): Buffer {
  if (packet.chaddr.length > CHADDR_LENGTH) throw new DhcpEncodeError('chaddr longer than 16 bytes', 0);
  const out = Buffer.allocUnsafe(wire.length);
  wire.copy(out);
  out[AT.htype] = packet.htype;
  out[AT.hlen] = packet.hlen;
  out.writeUInt32BE(packet.xid >>> 0, AT.xid);
  out.writeUInt16BE(packet.flags & 0xffff, AT.flags);
  writeAddress(out, AT.ciaddr, packet.ciaddr, 'ciaddr');
  writeAddress(out, AT.giaddr, packet.giaddr, 'giaddr');
  packet.chaddr.copy(out, AT.chaddr);
  return out;
}
