// The router advertisement sender on the bridge: unsolicited advertisements to all nodes every interval, and an
// answer to each valid router solicitation, so a booting guest learns its default route (and that DHCPv6 has its
// address) within moments instead of at the next tick. Bad input is counted and dropped, never thrown.
import type { Logger } from '@virt-launcher/shared';
import { DhcpDecodeError } from '../errors.js';
import { decodeNdMessage, NdType } from './packet.js';
import type { PreparedRa } from './prepare.js';
import { type Icmp6Arrival, type Icmp6Socket, openIcmp6Socket } from './socket.js';

const ALL_NODES = 'ff02::1';
const ALL_ROUTERS = 'ff02::2';
/** RFC 4861 §10: MIN_DELAY_BETWEEN_RAS for multicast advertisements. */
const MIN_MULTICAST_GAP_MS = 3000;
/** Solicited unicast answers are spaced too, so a flood of solicitations cannot turn into a flood of answers. */
const MIN_UNICAST_GAP_MS = 100;

export interface RaStats {
  received: number;
  sent: number;
  ignored: number;
  malformed: number;
  sendErrors: number;
}

export interface RaServer {
  close(): void;
  readonly stats: RaStats;
}

/** Why a decoded solicitation is not answered (RFC 4861 §6.1.1), or undefined to answer it. */
export function solicitationProblem(data: Buffer, from: Icmp6Arrival): string | undefined {
  // -1: the kernel gave no hop limit (never seen on Linux); judged by the rest then.
  if (from.hopLimit !== -1 && from.hopLimit !== 255) return `hop limit ${from.hopLimit} is not 255`;
  const msg = decodeNdMessage(data);
  if (msg.type !== 'rs') return 'not a router solicitation';
  if (from.address === '::' && msg.sourceMac) return 'unspecified source with a link-layer address option';
  return undefined;
}

export function startRa(prepared: PreparedRa, logger: Logger): RaServer {
  const stats: RaStats = { received: 0, sent: 0, ignored: 0, malformed: 0, sendErrors: 0 };
  let lastMulticast = 0;
  let lastUnicast = 0;
  let pending: NodeJS.Timeout | undefined;
  let closed = false;

  const send = (to: string): void => {
    try {
      socket.send(prepared.advertisement, to);
      stats.sent++;
      logger.debug('sent router advertisement', { to });
    } catch (e) {
      // Typically the bridge has no link-local address yet (no port has carrier): the next tick retries.
      stats.sendErrors++;
      logger.debug('router advertisement not sent', { to, reason: (e as Error).message });
    }
  };
  const multicast = (): void => {
    lastMulticast = Date.now();
    send(ALL_NODES);
  };
  const answer = (from: Icmp6Arrival): void => {
    const now = Date.now();
    if (from.address !== '::' && now - lastUnicast >= MIN_UNICAST_GAP_MS) {
      lastUnicast = now;
      send(from.address);
      return;
    }
    if (pending) return;
    const wait = Math.max(0, lastMulticast + MIN_MULTICAST_GAP_MS - now);
    pending = setTimeout(() => {
      pending = undefined;
      if (!closed) multicast();
    }, wait);
  };
  const handle = (data: Buffer, from: Icmp6Arrival): void => {
    stats.received++;
    try {
      const problem = solicitationProblem(data, from);
      if (problem) {
        stats.ignored++;
        logger.debug('ignoring ICMPv6 message', { reason: problem, from: from.address });
        return;
      }
      answer(from);
    } catch (e) {
      if (e instanceof DhcpDecodeError) {
        stats.malformed++;
        logger.debug('dropping malformed ICMPv6 message', { reason: e.message, from: from.address });
      } else {
        logger.error('failed to handle an ICMPv6 message', { reason: (e as Error).message, from: from.address });
      }
    }
  };
  const socket: Icmp6Socket = openIcmp6Socket(
    prepared.interfaceName,
    [NdType.RouterSolicitation],
    [ALL_ROUTERS],
    handle,
  );
  multicast();
  const ticker = setInterval(multicast, prepared.intervalMs);
  // The socket's poll keeps the process alive while the server runs; the timers alone must not.
  ticker.unref();
  logger.info('router advertisements on', { interface: prepared.interfaceName, intervalMs: prepared.intervalMs });
  return {
    stats,
    close: () => {
      if (closed) return;
      closed = true;
      clearInterval(ticker);
      if (pending) clearTimeout(pending);
      socket.close();
    },
  };
}
