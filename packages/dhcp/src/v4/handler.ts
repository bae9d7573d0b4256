// One datagram in, at most one reply out. Nothing a client sends may stop the server, so everything runs inside
// one try/catch and is only logged. Separate from the socket so the start-up warm-up can drive the same code.
import { DhcpDecodeError } from '../errors.js';
import type { Logger } from '@virt-launcher/shared';
import { formatMac } from '../addr.js';
import type { BoundSocket, Peer } from '../bound-socket.js';
import { decodeDhcpPacket } from './packet.js';
import { MessageType } from './options.js';
import type { PreparedV4 } from './prepare.js';
import { type Destination, encodeDecision, respondV4 } from './respond.js';

const typeNames: Record<number, string> = Object.fromEntries(
  Object.entries(MessageType).map(([k, v]) => [v, `DHCP${k.toUpperCase()}`]),
);

export interface V4Stats {
  received: number;
  replied: number;
  ignored: number;
  malformed: number;
}

export type Send = (data: Buffer, to: Destination) => void;

/** Where a handler's replies go: a socket opened after the handler was made (the handler is its callback). */
export interface ReplySocket {
  socket: BoundSocket | undefined;
  /** Every reply goes here instead of its destination (the loopback warm-up answers itself). */
  redirect?: Peer;
}

/**
 * The one send function of every v4 socket, the loopback warm-up's and the bridge's: one code site, so the
 * warm-up has compiled it when the guest's first DISCOVER arrives (a closure of the server's own was compiled
 * lazily then, on the reply's path).
 */
export function sendThrough(target: ReplySocket): Send {
  return (data, to) => target.socket?.send(data, target.redirect ?? { address: to.address, port: to.port, scopeId: 0 });
}

export function v4Handler(
  prepared: PreparedV4,
  logger: Logger,
  send: Send,
  stats: V4Stats,
): (data: Buffer, from: Peer) => void {
  return (data, from) => {
    stats.received++;
    try {
      const req = decodeDhcpPacket(data);
      const decision = respondV4(prepared, req, from);
      if (decision.kind === 'ignore') {
        stats.ignored++;
        logger.debug('ignoring packet', { reason: decision.reason, from: from.address });
        return;
      }
      if (decision.kind === 'note') {
        logger.info(decision.msg, { ...decision.fields, mac: formatMac(req.chaddr) });
        return;
      }
      send(encodeDecision(decision), decision.to);
      stats.replied++;
      // KubeVirt's server logs each packet only at verbosity 4. Here a reply is a debug line, after it was sent,
      // unless it is worth a look at the default level: a NAK, a reply trimmed to fit, or the ACK of a new binding
      // (one line per guest boot, none per renewal).
      const level = decision.note || decision.fit || decision.newLease ? 'info' : 'debug';
      logger[level](`sent ${typeNames[decision.type] ?? decision.type}`, {
        mac: formatMac(req.chaddr),
        xid: req.xid,
        yiaddr: decision.packet.yiaddr,
        to: decision.to.address,
        ...(decision.note ? { reason: decision.note } : {}),
        // A trimmed reply is the first thing to look at when a guest lacks a search domain or its host name.
        ...(decision.fit ? { fit: decision.fit } : {}),
      });
    } catch (e) {
      if (e instanceof DhcpDecodeError) {
        stats.malformed++;
        logger.debug('dropping malformed packet', { reason: e.message, offset: e.offset, from: from.address });
      } else {
        logger.error('failed to handle a DHCPv4 packet', { reason: (e as Error).message, from: from.address });
      }
    }
  };
}
