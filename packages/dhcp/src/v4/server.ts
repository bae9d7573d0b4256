// DHCPv4 server: a device-bound socket on :67 feeding respondV4. Nothing a client sends may stop it, so every
// datagram is handled inside one try/catch and only logged.
import type { DhcpV4Config } from '../gen/virtlauncher/dhcp/v1/dhcp.js';
import { DhcpDecodeError } from '../errors.js';
import type { Logger } from '../log.js';
import { formatMac } from '../addr.js';
import { type Peer, openBoundSocket } from '../bound-socket.js';
import { decodeDhcpPacket } from './packet.js';
import { MessageType } from './options.js';
import { prepareV4 } from './prepare.js';
import { encodeDecision, respondV4 } from './respond.js';
import { warmUpV4 } from './warm-up.js';

const typeNames: Record<number, string> = Object.fromEntries(
  Object.entries(MessageType).map(([k, v]) => [v, `DHCP${k.toUpperCase()}`]),
);

export interface V4Stats {
  received: number;
  replied: number;
  ignored: number;
  malformed: number;
}

export interface V4Server {
  close(): void;
  readonly stats: V4Stats;
}

export function startV4(cfg: DhcpV4Config, logger: Logger): V4Server {
  const prepared = prepareV4(cfg, logger);
  warmUpV4(prepared);
  const stats: V4Stats = { received: 0, replied: 0, ignored: 0, malformed: 0 };

  const handle = (data: Buffer, from: Peer): void => {
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
      socket.send(encodeDecision(decision), { ...decision.to, scopeId: 0 });
      stats.replied++;
      logger.info(`sent ${typeNames[decision.type] ?? decision.type}`, {
        mac: formatMac(req.chaddr),
        xid: req.xid,
        yiaddr: decision.packet.yiaddr,
        to: decision.to.address,
        ...(decision.note ? { reason: decision.note } : {}),
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

  const socket = openBoundSocket(4, prepared.interfaceName, 67, handle);
  logger.info('DHCPv4 server listening', {
    interface: prepared.interfaceName,
    serverIp: prepared.serverIp,
    clientIp: prepared.clientIp,
    clientMac: prepared.clientMac ? formatMac(prepared.clientMac) : 'any',
  });
  return {
    stats,
    close: () => socket.close(),
  };
}
