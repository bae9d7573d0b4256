// DHCPv6 server: a device-bound socket on [::]:547 that joins All_DHCP_Relay_Agents_and_Servers on the bridge.
import type { DhcpV6Config } from '@virt-launcher/contracts';
import { DhcpDecodeError } from '../errors.js';
import type { Logger } from '@virt-launcher/shared';
import { type Peer, openBoundSocket } from '../bound-socket.js';
import { decodeDhcpv6Message, encodeDhcpv6Message } from './message.js';
import { prepareV6, respondV6 } from './respond.js';

const ALL_DHCP_SERVERS = 'ff02::1:2';

export interface V6Stats {
  received: number;
  replied: number;
  ignored: number;
  malformed: number;
}

export interface V6Server {
  close(): void;
  readonly stats: V6Stats;
}

export function startV6(cfg: DhcpV6Config, logger: Logger): V6Server {
  const prepared = prepareV6(cfg);
  const stats: V6Stats = { received: 0, replied: 0, ignored: 0, malformed: 0 };
  const handle = (data: Buffer, from: Peer): void => {
    stats.received++;
    try {
      const decision = respondV6(prepared, decodeDhcpv6Message(data));
      if (decision.kind === 'ignore') {
        stats.ignored++;
        logger.debug('ignoring DHCPv6 message', { reason: decision.reason, from: from.address });
        return;
      }
      socket.send(encodeDhcpv6Message(decision.message), from);
      stats.replied++;
      logger.info(`sent ${decision.note}`, { to: from.address, xid: decision.message.transactionId });
    } catch (e) {
      if (e instanceof DhcpDecodeError) {
        stats.malformed++;
        logger.debug('dropping malformed DHCPv6 message', { reason: e.message, from: from.address });
      } else {
        logger.error('failed to handle a DHCPv6 message', { reason: (e as Error).message, from: from.address });
      }
    }
  };
  const socket = openBoundSocket(6, prepared.interfaceName, 547, handle, ALL_DHCP_SERVERS);
  logger.info('DHCPv6 server listening', { interface: prepared.interfaceName });
  return { stats, close: () => socket.close() };
}
