// DHCPv4 server: a device-bound socket on :67 feeding the handler.
import type { DhcpV4Config } from '@virt-launcher/contracts';
import type { Logger } from '@virt-launcher/shared';
import { formatMac } from '../addr.js';
import { openBoundSocket } from '../bound-socket.js';
import { prepareV4 } from './prepare.js';
import { type ReplySocket, type V4Stats, sendThrough, v4Handler } from './handler.js';
import { warmUpV4 } from './warm-up.js';
import { warmUpThroughLoopback } from './warm-up-loopback.js';

export type { V4Stats } from './handler.js';

export interface V4Server {
  close(): void;
  readonly stats: V4Stats;
}

export async function startV4(cfg: DhcpV4Config, logger: Logger): Promise<V4Server> {
  const prepared = prepareV4(cfg, logger);
  warmUpV4(prepared);
  const warmed = await warmUpThroughLoopback(prepared);
  logger.debug('warmed up through the loopback', { answered: warmed });
  const stats: V4Stats = { received: 0, replied: 0, ignored: 0, malformed: 0 };
  // Same shape as the warm-up's target, so the shared send code sees one object layout.
  const target: ReplySocket = { socket: undefined, redirect: undefined };
  const socket = openBoundSocket(
    4,
    prepared.interfaceName,
    67,
    v4Handler(prepared, logger, sendThrough(target), stats),
  );
  target.socket = socket;
  logger.info('DHCPv4 server listening', {
    interface: prepared.interfaceName,
    serverIp: prepared.serverIp,
    clientIp: prepared.clientIp,
    clientMac: prepared.clientMac ? formatMac(prepared.clientMac) : 'any',
  });
  return { stats, close: () => socket.close() };
}
