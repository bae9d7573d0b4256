// RouterAdvertConfig -> the one advertisement this link ever gets, checked and built once at start. The prefix
// is on-link but never autonomous and the managed flag is set: the guest's address comes from our DHCPv6
// server (a VM network such as fd10:0:2::/120 is too small for SLAAC anyway); the advertisement gives the route.
import type { RouterAdvertConfig } from '@virt-launcher/contracts';
import { parseCidr6, parseIPv6, parseMac } from '../addr.js';
import { DhcpConfigError } from '../errors.js';
import { PREFIX_ON_LINK, RA_MANAGED, RA_OTHER, encodeRouterAdvertisement, type RouterAdvertisement } from './packet.js';

export const DEFAULT_ROUTER_LIFETIME = 1800;
export const DEFAULT_RA_INTERVAL = 10;
/** RFC 4861 §6.2.1: AdvDefaultLifetime is at most 9000 s. */
export const MAX_ROUTER_LIFETIME = 9000;
/** Prefix lifetimes: RFC 4861 §6.2.1's defaults for AdvValidLifetime and AdvPreferredLifetime. */
const VALID_LIFETIME = 2_592_000;
const PREFERRED_LIFETIME = 604_800;

export interface PreparedRa {
  interfaceName: string;
  intervalMs: number;
  advertisement: Buffer;
  fields: RouterAdvertisement;
}

const field = (name: string) => `v6.routerAdvert.${name}`;

function networkOf(address: Buffer, prefix: number): Buffer {
  const out = Buffer.from(address);
  for (let bit = prefix; bit < 128; bit++) out[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return out;
}

export function prepareRa(interfaceName: string, serverMac: string, cfg: RouterAdvertConfig): PreparedRa {
  if (interfaceName === '') throw new DhcpConfigError('interface name is required', 'v6.interfaceName');
  const cidr = parseCidr6(cfg.prefix);
  if (!cidr) throw new DhcpConfigError(`"${cfg.prefix}" is not an IPv6 prefix`, field('prefix'));
  const mac = parseMac(serverMac === '' ? '02:00:00:00:00:00' : serverMac);
  if (!mac) throw new DhcpConfigError(`"${serverMac}" is not a MAC address`, 'v6.serverMac');
  const lifetime = cfg.routerLifetimeSeconds === 0 ? DEFAULT_ROUTER_LIFETIME : cfg.routerLifetimeSeconds;
  if (lifetime > MAX_ROUTER_LIFETIME) {
    throw new DhcpConfigError(
      `router lifetime ${lifetime} exceeds ${MAX_ROUTER_LIFETIME} s`,
      field('routerLifetimeSeconds'),
    );
  }
  const interval = cfg.intervalSeconds === 0 ? DEFAULT_RA_INTERVAL : cfg.intervalSeconds;
  // Unsolicited advertisements must come often enough to renew the route before it lapses.
  if (interval >= lifetime) {
    throw new DhcpConfigError(
      `interval ${interval} s is not below the router lifetime ${lifetime} s`,
      field('intervalSeconds'),
    );
  }
  if (cfg.mtu !== 0 && (cfg.mtu < 1280 || cfg.mtu > 65535)) {
    throw new DhcpConfigError(`MTU ${cfg.mtu} is outside 1280..65535`, field('mtu'));
  }
  const dnsServers = cfg.dnsServers.map((s) => {
    const a = parseIPv6(s);
    if (!a) throw new DhcpConfigError(`"${s}" is not an IPv6 address`, field('dnsServers'));
    return a;
  });
  const fields: RouterAdvertisement = {
    curHopLimit: 64,
    flags: RA_MANAGED | RA_OTHER,
    routerLifetime: lifetime,
    reachableTime: 0,
    retransTimer: 0,
    sourceMac: mac,
    prefixes: [
      {
        prefix: networkOf(cidr.address, cidr.prefix),
        prefixLength: cidr.prefix,
        flags: PREFIX_ON_LINK,
        validLifetime: VALID_LIFETIME,
        preferredLifetime: PREFERRED_LIFETIME,
      },
    ],
    mtu: cfg.mtu === 0 ? undefined : cfg.mtu,
    dnsServers,
    // RFC 8106 §5.1: at least MaxRtrAdvInterval; the router lifetime keeps DNS and route lapsing together.
    dnsLifetime: lifetime,
  };
  return { interfaceName, intervalMs: interval * 1000, advertisement: encodeRouterAdvertisement(fields), fields };
}
