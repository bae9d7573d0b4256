// startDhcpServer: one DHCPv4 and/or one DHCPv6 server for one bridge, as the launcher starts per masquerade NIC.
import type { DhcpServerConfig } from '@virt-launcher/contracts';
import { DhcpConfigError, DhcpSocketError } from './errors.js';
import { type Logger, createLogger } from '@virt-launcher/shared';
import { type V4Server, type V4Stats, startV4 } from './v4/server.js';
import { type V6Server, type V6Stats, startV6 } from './v6/server.js';
import { type PreparedRa, prepareRa } from './ra/prepare.js';
import { type RaServer, type RaStats, startRa } from './ra/server.js';

export interface DhcpServerOptions {
  /** Defaults to JSON lines on stderr with component "virt-dhcp". */
  logger?: Logger;
}

export interface DhcpServer {
  /** Closes the sockets; idempotent. */
  close(): Promise<void>;
  /** Counters since start, per family (undefined when that family is not served). */
  stats(): { v4: V4Stats | undefined; v6: V6Stats | undefined; ra: RaStats | undefined };
}

/**
 * Advertisements are this project's addition to KubeVirt's servers and need a raw socket (CAP_NET_RAW), which a
 * launcher without it does not get: then DHCPv4/DHCPv6 still serve and the failure is logged, not thrown.
 */
function startRaOrWarn(prepared: PreparedRa, logger: Logger): RaServer | undefined {
  try {
    return startRa(prepared, logger);
  } catch (e) {
    if (!(e instanceof DhcpSocketError)) throw e;
    logger.warning('router advertisements not started', { interface: e.interfaceName, reason: e.message });
    return undefined;
  }
}

export async function startDhcpServer(config: DhcpServerConfig, options: DhcpServerOptions = {}): Promise<DhcpServer> {
  const logger = options.logger ?? createLogger({ component: 'virt-dhcp' });
  if (!config.v4 && !config.v6) throw new DhcpConfigError('neither v4 nor v6 is configured', 'v4');
  let v4: V4Server | undefined;
  let v6: V6Server | undefined;
  let ra: RaServer | undefined;
  try {
    // Checked before any socket opens, so a bad advertisement config leaves nothing running.
    const raPrepared =
      config.v6?.routerAdvert && prepareRa(config.v6.interfaceName, config.v6.serverMac, config.v6.routerAdvert);
    if (config.v4) v4 = await startV4(config.v4, logger);
    if (config.v6) v6 = startV6(config.v6, logger);
    if (raPrepared) ra = startRaOrWarn(raPrepared, logger);
  } catch (e) {
    v4?.close();
    v6?.close();
    throw e;
  }
  return {
    close: async () => {
      v4?.close();
      v6?.close();
      ra?.close();
    },
    stats: () => ({
      v4: v4 ? { ...v4.stats } : undefined,
      v6: v6 ? { ...v6.stats } : undefined,
      ra: ra ? { ...ra.stats } : undefined,
    }),
  };
}
