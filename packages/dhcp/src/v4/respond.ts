// The single-guest DHCPv4 state machine (RFC 2131 §4.3), pure: request in, decision out. No I/O here, so every
// branch is tested without sockets.
import { formatIPv4, parseIPv4 } from '../addr.js';
import { BROADCAST_FLAG, type DhcpPacket, encodeDhcpPacket } from './packet.js';
import { MessageType, Opt, type Options } from './options.js';
import { replyLimit } from './fit.js';
import type { PreparedV4 } from './prepare.js';
import { type FitReport, fillTemplate, replyTemplate } from './reply-template.js';

export type { FitReport } from './reply-template.js';

const ZERO = '0.0.0.0';

export interface Destination {
  address: string;
  port: number;
}

export type Decision =
  | { kind: 'ignore'; reason: string }
  | { kind: 'note'; msg: string; fields: Record<string, unknown> }
  | {
      kind: 'reply';
      type: number;
      /** Read only but for a NAK's: an OFFER's or ACK's option maps are shared with every reply of its kind. */
      packet: DhcpPacket;
      to: Destination;
      note?: string;
      fit?: FitReport;
      /** An ACK that starts a binding (SELECTING, INIT-REBOOT), not a renewal: the guest took its address. */
      newLease?: boolean;
      /** The encoded reply this packet's own fields are written into (reply-template.ts); absent for a NAK. */
      template?: Buffer;
    };

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

/** A NAK's options: 53 and 54 only, in maps of its own because nak() adds its message. */
function nakOptions(p: PreparedV4): Pick<DhcpPacket, 'options' | 'fileOptions' | 'snameOptions'> {
  const options: Options = new Map();
  options.set(Opt.MessageType, Buffer.from([MessageType.Nak]));
  options.set(Opt.ServerId, parseIPv4(p.serverIp) ?? Buffer.alloc(4));
  return { options, fileOptions: new Map(), snameOptions: new Map() };
}

function reply(p: PreparedV4, req: DhcpPacket, type: number, source: Destination, withLease: boolean): Decision {
  const template =
    type === MessageType.Nak
      ? undefined
      : replyTemplate(
          p,
          type,
          withLease,
          replyLimit(req.options.get(Opt.MaxMessageSize), p.linkMtu),
          req.options.get(Opt.ParameterRequestList),
        );
  const areas = template ?? nakOptions(p);
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
    options: areas.options,
    fileOptions: areas.fileOptions,
    snameOptions: areas.snameOptions,
  };
  const d: Decision = { kind: 'reply', type, packet, to: destinationFor(req, type, source) };
  if (template?.fit) d.fit = template.fit;
  if (template) d.template = template.wire;
  return d;
}

/** Marks an ACK that starts a binding, which the server logs at info (renewals only at debug). */
function newLease(d: Decision): Decision {
  if (d.kind === 'reply') d.newLease = true;
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
    return newLease(reply(p, req, MessageType.Ack, source, true));
  }
  if (requested !== undefined) {
    // INIT-REBOOT: the client checks an address it remembers.
    if (requested !== p.clientIp) return nak(p, req, source, `requested address ${requested} is not the guest's`);
    return newLease(reply(p, req, MessageType.Ack, source, true));
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
  return d.template ? fillTemplate(d.template, d.packet) : encodeDhcpPacket(d.packet);
}
