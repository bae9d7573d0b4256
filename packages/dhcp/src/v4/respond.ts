// The single-guest DHCPv4 state machine (RFC 2131 §4.3), pure: request in, decision out. No I/O here, so every
// branch is tested without sockets.
import { formatIPv4, parseIPv4 } from '../addr.js';
import { BROADCAST_FLAG, type DhcpPacket, encodeDhcpPacket } from './packet.js';
import { MessageType, Opt, type Options } from './options.js';
import { type FittedOptions, fitReply, replyLimit } from './fit.js';
import type { PreparedV4 } from './prepare.js';

const ZERO = '0.0.0.0';

export interface Destination {
  address: string;
  port: number;
}

export type Decision =
  | { kind: 'ignore'; reason: string }
  | { kind: 'note'; msg: string; fields: Record<string, unknown> }
  | { kind: 'reply'; type: number; packet: DhcpPacket; to: Destination; note?: string; fit?: FitReport };

/** What was done to make a reply fit the client's size limit, for the log. */
export interface FitReport {
  limit: number;
  /** Codes carried (in whole or in part) in the file and sname fields (option 52). */
  inFile: number[];
  inSname: number[];
  dropped: number[];
  searchDomainsKept?: number;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function optionIPv4(options: Options, code: number): string | undefined {
  const v = options.get(code);
  return v && v.length === 4 ? formatIPv4(v) : undefined;
}

/** RFC 2131 §4.1 destination rules, in order: relay, configured client, broadcast. */
function destinationFor(req: DhcpPacket, type: number, source: Destination): Destination {
  if (req.giaddr !== ZERO) return { address: req.giaddr, port: 67 };
  if (type === MessageType.Nak) return { address: '255.255.255.255', port: 68 };
  if (req.ciaddr !== ZERO) {
    return source.address === req.ciaddr ? source : { address: req.ciaddr, port: 68 };
  }
  // Without the broadcast flag the RFC allows unicast to yiaddr at chaddr, which needs an ARP entry for an address
  // the guest does not hold yet; broadcast on the bridge reaches the same single guest without that.
  return { address: '255.255.255.255', port: 68 };
}

function reply(p: PreparedV4, req: DhcpPacket, type: number, source: Destination, withLease: boolean): Decision {
  const fixed: Options = new Map();
  fixed.set(Opt.MessageType, Buffer.from([type]));
  fixed.set(Opt.ServerId, parseIPv4(p.serverIp) ?? Buffer.alloc(4));
  if (withLease) fixed.set(Opt.LeaseTime, u32(p.leaseSeconds));
  const prl = req.options.get(Opt.ParameterRequestList);
  const limit = replyLimit(req.options.get(Opt.MaxMessageSize), p.linkMtu);
  const fitted: FittedOptions =
    type === MessageType.Nak
      ? { options: fixed, fileOptions: new Map(), snameOptions: new Map(), dropped: [] }
      : fitReply({
          fixed,
          configured: p.options,
          searchDomains: p.searchDomains,
          requested: prl ? new Set(prl) : undefined,
          limit,
        });
  const packet: DhcpPacket = {
    op: 2,
    htype: req.htype,
    hlen: req.hlen,
    hops: 0,
    xid: req.xid,
    secs: 0,
    flags: req.flags & BROADCAST_FLAG,
    ciaddr: type === MessageType.Nak ? ZERO : req.ciaddr,
    yiaddr: withLease ? p.clientIp : ZERO,
    siaddr: ZERO,
    giaddr: req.giaddr,
    chaddr: req.chaddr,
    sname: '',
    file: '',
    options: fitted.options,
    fileOptions: fitted.fileOptions,
    snameOptions: fitted.snameOptions,
  };
  const d: Decision = { kind: 'reply', type, packet, to: destinationFor(req, type, source) };
  if (fitted.dropped.length > 0 || fitted.fileOptions.size + fitted.snameOptions.size > 0) {
    d.fit = {
      limit,
      inFile: [...fitted.fileOptions.keys()],
      inSname: [...fitted.snameOptions.keys()],
      dropped: fitted.dropped,
      ...(fitted.searchDomainsKept !== undefined ? { searchDomainsKept: fitted.searchDomainsKept } : {}),
    };
  }
  return d;
}

function nak(p: PreparedV4, req: DhcpPacket, source: Destination, why: string): Decision {
  const d = reply(p, req, MessageType.Nak, source, false);
  if (d.kind === 'reply') {
    d.packet.options.set(Opt.Message, Buffer.from(why, 'latin1'));
    // RFC 2131 §4.3.2: a NAK through a relay must be broadcast by the relay.
    if (req.giaddr !== ZERO) d.packet.flags |= BROADCAST_FLAG;
    d.note = why;
  }
  return d;
}

function onRequest(p: PreparedV4, req: DhcpPacket, source: Destination): Decision {
  const serverId = optionIPv4(req.options, Opt.ServerId);
  const requested = optionIPv4(req.options, Opt.RequestedIp);
  if (serverId !== undefined) {
    // SELECTING. RFC 2131 §4.3.2: a server the client did not choose stays silent. With bridge binding the guest's
    // link can have its own DHCP server too, and a NAK from us would undo the lease it chose there.
    if (serverId !== p.serverIp) {
      return { kind: 'note', msg: 'client chose another DHCP server', fields: { serverId, xid: req.xid } };
    }
    if (requested !== p.clientIp) return nak(p, req, source, `requested address ${requested ?? 'none'} is not offered`);
    return reply(p, req, MessageType.Ack, source, true);
  }
  if (requested !== undefined) {
    // INIT-REBOOT: the client checks an address it remembers.
    if (requested !== p.clientIp) return nak(p, req, source, `requested address ${requested} is not the guest's`);
    return reply(p, req, MessageType.Ack, source, true);
  }
  if (req.ciaddr !== ZERO) {
    // RENEWING or REBINDING.
    if (req.ciaddr !== p.clientIp) return nak(p, req, source, `ciaddr ${req.ciaddr} is not the guest's`);
    return reply(p, req, MessageType.Ack, source, true);
  }
  return { kind: 'ignore', reason: 'REQUEST without server id, requested address or ciaddr' };
}

export function respondV4(p: PreparedV4, req: DhcpPacket, source: Destination): Decision {
  if (req.op !== 1) return { kind: 'ignore', reason: `op ${req.op} is not BOOTREQUEST` };
  const typeOpt = req.options.get(Opt.MessageType);
  if (!typeOpt || typeOpt.length !== 1) return { kind: 'ignore', reason: 'no DHCP message type' };
  const type = typeOpt[0] ?? 0;
  if (p.clientMac && !(req.hlen === 6 && req.chaddr.equals(p.clientMac))) {
    return { kind: 'ignore', reason: 'chaddr is not the configured client' };
  }
  switch (type) {
    case MessageType.Discover:
      return reply(p, req, MessageType.Offer, source, true);
    case MessageType.Request:
      return onRequest(p, req, source);
    case MessageType.Inform:
      return reply(p, req, MessageType.Ack, source, false);
    case MessageType.Release:
      return { kind: 'note', msg: 'client released its lease', fields: { ciaddr: req.ciaddr } };
    case MessageType.Decline:
      return {
        kind: 'note',
        msg: 'client declined the address (in use on its link?)',
        fields: { requested: optionIPv4(req.options, Opt.RequestedIp) },
      };
    default:
      return { kind: 'ignore', reason: `message type ${type} is not for a server` };
  }
}

/** Encodes a reply; kept here so the server file stays about sockets only. */
export function encodeDecision(d: Extract<Decision, { kind: 'reply' }>): Buffer {
  return encodeDhcpPacket(d.packet);
}
