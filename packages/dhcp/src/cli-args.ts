// Flags of `virt-dhcp serve` -> DhcpServerConfig. Pure, so every flag error is a unit test; a bad flag is a
// UsageError that the CLI prints as one line and exits 2 on.
import { parseArgs } from 'node:util';
import { type DhcpServerConfig, DhcpV4Config, DhcpV6Config, RouterAdvertConfig } from '@virt-launcher/contracts';
import type { LogLevel } from '@virt-launcher/shared';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE =
  'usage: virt-dhcp serve --config FILE [--log-level debug|info|warning|error]\n' +
  "   (FILE: a DhcpServerConfig as netsetup plans it, binary .pb or .json, e.g. a launcher's vif-cache-eth0.pb)\n" +
  '       virt-dhcp serve --interface IF --server-ip IP --client-ip CIDR [--client-mac MAC] [--router IP] ' +
  '[--dns IP[,IP]] [--search DOMAIN[,DOMAIN]] [--domain NAME] [--mtu N] [--hostname NAME] [--route CIDR,GATEWAY]... ' +
  '[--lease-seconds N] [--ntp IP[,IP]] [--tftp-server NAME] [--bootfile NAME] [--private-option CODE=HEX]... ' +
  '[--client-ipv6 CIDR --server-mac MAC --dns6 IP[,IP] [--ra [--ra-lifetime S] [--ra-interval S]]] ' +
  '[--log-level debug|info|warning|error]';

const flags = {
  interface: { type: 'string' },
  'server-ip': { type: 'string' },
  'client-mac': { type: 'string' },
  'client-ip': { type: 'string' },
  router: { type: 'string' },
  dns: { type: 'string' },
  search: { type: 'string' },
  domain: { type: 'string' },
  mtu: { type: 'string' },
  hostname: { type: 'string' },
  route: { type: 'string', multiple: true },
  'lease-seconds': { type: 'string' },
  ntp: { type: 'string' },
  'tftp-server': { type: 'string' },
  bootfile: { type: 'string' },
  'private-option': { type: 'string', multiple: true },
  'client-ipv6': { type: 'string' },
  'server-mac': { type: 'string' },
  dns6: { type: 'string' },
  ra: { type: 'boolean' },
  'ra-lifetime': { type: 'string' },
  'ra-interval': { type: 'string' },
  'log-level': { type: 'string' },
  config: { type: 'string' },
} as const;

export interface ServeCommand {
  config: DhcpServerConfig;
  /** --config: the configuration is read from this file instead (config is then empty). */
  configPath?: string;
  logLevel: LogLevel;
}

function list(text: string | undefined): string[] {
  return text === undefined ? [] : text.split(',').filter((s) => s !== '');
}

function uint(text: string | undefined, flag: string, max: number): number {
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`--${flag}: "${text}" is not a number <= ${max}`);
  return Number(text);
}

/** --ra announces the network of --client-ipv6 (its host bits cleared by the server), with --mtu and --dns6. */
function routerAdvert(
  clientIpv6: string,
  values: { mtu?: string; dns6?: string; 'ra-lifetime'?: string; 'ra-interval'?: string },
): RouterAdvertConfig {
  return RouterAdvertConfig.fromPartial({
    prefix: clientIpv6,
    routerLifetimeSeconds: uint(values['ra-lifetime'], 'ra-lifetime', 9000),
    intervalSeconds: uint(values['ra-interval'], 'ra-interval', 1800),
    mtu: uint(values.mtu, 'mtu', 65535),
    dnsServers: list(values.dns6),
  });
}

export function parseServeArgs(argv: readonly string[]): ServeCommand {
  const [command, ...rest] = argv;
  if (command !== 'serve')
    throw new UsageError(command === undefined ? 'missing command "serve"' : `unknown command "${command}"`);
  let values;
  try {
    ({ values } = parseArgs({ args: [...rest], options: flags, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0] ?? 'bad flags');
  }
  const logLevelEarly = (values['log-level'] ?? 'info') as LogLevel;
  if (values.config !== undefined) {
    const others = Object.keys(values).filter((k) => k !== 'config' && k !== 'log-level');
    if (others.length > 0) throw new UsageError(`--config carries the whole configuration: drop --${others[0]}`);
    if (!['debug', 'info', 'warning', 'error'].includes(logLevelEarly)) {
      throw new UsageError(`--log-level: "${logLevelEarly}"`);
    }
    return { config: { v4: undefined, v6: undefined }, configPath: values.config, logLevel: logLevelEarly };
  }
  const ifname = values.interface;
  if (!ifname) throw new UsageError('--interface is required');
  if (!values['client-ip'] && !values['client-ipv6']) throw new UsageError('--client-ip or --client-ipv6 is required');
  const logLevel = (values['log-level'] ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warning', 'error'].includes(logLevel)) throw new UsageError(`--log-level: "${logLevel}"`);
  const config: DhcpServerConfig = { v4: undefined, v6: undefined };
  if (values['client-ip']) {
    if (!values['server-ip']) throw new UsageError('--server-ip is required with --client-ip');
    config.v4 = DhcpV4Config.fromPartial({
      interfaceName: ifname,
      serverIp: values['server-ip'],
      clientMac: values['client-mac'] ?? '',
      clientIpCidr: values['client-ip'],
      router: values.router ?? '',
      dnsServers: list(values.dns),
      searchDomains: list(values.search),
      domainName: values.domain ?? '',
      mtu: uint(values.mtu, 'mtu', 65535),
      hostname: values.hostname ?? '',
      routes: (values.route ?? []).map((r) => {
        const [destination, gateway = '', extra] = r.split(',');
        if (!destination || !r.includes(',') || extra !== undefined)
          throw new UsageError(`--route: "${r}" is not CIDR,GATEWAY`);
        return { destination, gateway };
      }),
      leaseSeconds: uint(values['lease-seconds'], 'lease-seconds', 0xffffffff),
      ntpServers: list(values.ntp),
      tftpServerName: values['tftp-server'] ?? '',
      bootfileName: values.bootfile ?? '',
      privateOptions: (values['private-option'] ?? []).map((o) => {
        const m = /^(\d+)=((?:[0-9a-f]{2})*)$/i.exec(o);
        if (!m) throw new UsageError(`--private-option: "${o}" is not CODE=HEX`);
        return { code: Number(m[1]), value: Buffer.from(m[2] ?? '', 'hex') };
      }),
    });
  }
  if (values['client-ipv6']) {
    config.v6 = DhcpV6Config.fromPartial({
      interfaceName: ifname,
      clientIpCidr: values['client-ipv6'],
      serverMac: values['server-mac'] ?? '',
      dnsServers: list(values.dns6),
      leaseSeconds: uint(values['lease-seconds'], 'lease-seconds', 0xffffffff),
      routerAdvert: values.ra ? routerAdvert(values['client-ipv6'], values) : undefined,
    });
  } else if (values.ra || values['ra-lifetime'] || values['ra-interval']) {
    throw new UsageError('--ra needs --client-ipv6');
  }
  return { config, logLevel };
}
