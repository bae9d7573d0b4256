// Turns a DhcpV4Config into the fixed parts of every reply: addresses checked once at start-up, option values
// encoded once. Bad essentials fail the start (DhcpConfigError); bad search domains and private codes outside
// 224..254 are dropped with a warning, because a guest without one search domain is better than no DHCP at all.
import { DEFAULT_LEASE_SECONDS, type DhcpV4Config } from '@virt-launcher/contracts';
import { DhcpConfigError } from '../errors.js';
import type { Logger } from '@virt-launcher/shared';
import { parseCidr4, parseIPv4, parseMac, prefixToMask } from '../addr.js';
import { Opt, type Options } from './options.js';
import { encodeDomainSearch, isValidSearchDomain } from './domain-search.js';
import { type ClasslessRoute, encodeClasslessRoutes } from './classless-routes.js';

/** The link MTU assumed when none is configured. */
const ETHERNET_MTU = 1500;

export interface PreparedV4 {
  interfaceName: string;
  serverIp: string;
  /** Undefined answers any client. */
  clientMac: Buffer | undefined;
  clientIp: string;
  leaseSeconds: number;
  /** Configured options (everything but 53/54/51) in ascending code order. */
  options: Options;
  /** The valid search domains option 119 holds, kept so a reply can shorten the list to fit (fit.ts). */
  searchDomains: string[];
  /** MTU of the guest's link: no reply is made larger than this, whatever option 57 says. */
  linkMtu: number;
}

function ipv4(text: string, field: string): Buffer {
  const a = parseIPv4(text);
  if (!a) throw new DhcpConfigError(`${field} "${text}" is not an IPv4 address`, field);
  return a;
}

function ipv4List(list: readonly string[], field: string): Buffer {
  return Buffer.concat(list.map((s) => ipv4(s, field)));
}

function validSearchDomains(domains: readonly string[], logger: Logger): string[] {
  return domains.filter((d) => {
    if (isValidSearchDomain(d)) return true;
    logger.warning('dropping invalid search domain', { domain: d });
    return false;
  });
}

function routesWithDefault(cfg: DhcpV4Config): ClasslessRoute[] {
  const routes = cfg.routes.map((r) => ({ destination: r.destination, gateway: r.gateway }));
  // RFC 3442: a client that receives option 121 ignores option 3, so the router must also be a 121 default route.
  if (routes.length > 0 && cfg.router !== '' && !routes.some((r) => r.destination.endsWith('/0'))) {
    routes.push({ destination: '0.0.0.0/0', gateway: cfg.router });
  }
  return routes;
}

export function prepareV4(cfg: DhcpV4Config, logger: Logger): PreparedV4 {
  if (cfg.interfaceName === '') throw new DhcpConfigError('interface name is required', 'v4.interfaceName');
  ipv4(cfg.serverIp, 'v4.serverIp');
  const cidr = parseCidr4(cfg.clientIpCidr);
  if (!cidr) throw new DhcpConfigError(`"${cfg.clientIpCidr}" is not an IPv4 CIDR`, 'v4.clientIpCidr');
  if (cidr.prefix > 30) {
    throw new DhcpConfigError('client network has less than 4 addresses', 'v4.clientIpCidr');
  }
  let clientMac: Buffer | undefined;
  if (cfg.clientMac !== '') {
    clientMac = parseMac(cfg.clientMac);
    if (!clientMac) throw new DhcpConfigError(`"${cfg.clientMac}" is not a MAC address`, 'v4.clientMac');
  }
  const options: Options = new Map();
  options.set(Opt.SubnetMask, prefixToMask(cidr.prefix));
  if (cfg.router !== '') options.set(Opt.Router, ipv4(cfg.router, 'v4.router'));
  if (cfg.dnsServers.length > 0) options.set(Opt.DnsServers, ipv4List(cfg.dnsServers, 'v4.dnsServers'));
  if (cfg.hostname !== '') options.set(Opt.HostName, Buffer.from(cfg.hostname, 'latin1'));
  const search = validSearchDomains(cfg.searchDomains, logger);
  const longest = search.reduce((a, b) => (b.length > a.length ? b : a), '');
  const domainName = cfg.domainName !== '' ? cfg.domainName : longest;
  if (domainName !== '') options.set(Opt.DomainName, Buffer.from(domainName, 'latin1'));
  if (cfg.mtu !== 0) {
    if (cfg.mtu < 68 || cfg.mtu > 65535) throw new DhcpConfigError(`MTU ${cfg.mtu} is out of range`, 'v4.mtu');
    const mtu = Buffer.alloc(2);
    mtu.writeUInt16BE(cfg.mtu);
    options.set(Opt.InterfaceMtu, mtu);
  }
  if (cfg.ntpServers.length > 0) options.set(Opt.NtpServers, ipv4List(cfg.ntpServers, 'v4.ntpServers'));
  if (cfg.tftpServerName !== '') options.set(Opt.TftpServerName, Buffer.from(cfg.tftpServerName, 'latin1'));
  if (cfg.bootfileName !== '') options.set(Opt.BootfileName, Buffer.from(cfg.bootfileName, 'latin1'));
  if (search.length > 0) options.set(Opt.DomainSearch, encodeDomainSearch(search));
  const routes = routesWithDefault(cfg);
  if (routes.length > 0) {
    try {
      options.set(Opt.ClasslessRoutes, encodeClasslessRoutes(routes));
    } catch (e) {
      throw new DhcpConfigError((e as Error).message, 'v4.routes');
    }
  }
  for (const p of cfg.privateOptions) {
    if (p.code < 224 || p.code > 254) {
      logger.warning('dropping private option outside 224..254', { code: p.code });
      continue;
    }
    options.set(p.code, Buffer.from(p.value));
  }
  return {
    interfaceName: cfg.interfaceName,
    serverIp: cfg.serverIp,
    clientMac,
    clientIp: cfg.clientIpCidr.slice(0, cfg.clientIpCidr.indexOf('/')),
    leaseSeconds: cfg.leaseSeconds === 0 ? DEFAULT_LEASE_SECONDS : cfg.leaseSeconds,
    options: new Map([...options].sort((a, b) => a[0] - b[0])),
    searchDomains: search,
    linkMtu: cfg.mtu === 0 ? ETHERNET_MTU : cfg.mtu,
  };
}
