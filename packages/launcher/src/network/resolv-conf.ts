// The pod's DNS settings for the guest's lease, read the way KubeVirt's launcher reads /etc/resolv.conf when it
// starts a DHCP server (pkg/network/dns/resolveconf.go, used by pkg/network/driver/common.go StartDHCP): a line
// that starts with "nameserver" and has exactly two fields gives one server (an unparsable address is skipped),
// every field after a line's leading "search" is a search domain, lower-cased; no server at all means 8.8.8.8
// and no search domain means cluster.local. The subdomain rule is DomainNameWithSubdomain's.
import { isIPv4, isIPv6 } from 'node:net';

export const DEFAULT_NAMESERVER = '8.8.8.8';
export const DEFAULT_SEARCH_DOMAIN = 'cluster.local';
/**
 * The pod's file is read up to this many bytes: kubelet writes a few hundred, and what a hostile image puts there
 * must not grow the launcher. KubeVirt has no such bound (its DHCP server then refuses an option 119 over 255
 * bytes and the launcher panics); ours keeps what fits in the reply, so nothing beyond this could be served.
 */
export const RESOLV_CONF_MAX_BYTES = 64 * 1024;

export interface PodDns {
  ipv4Nameservers: string[];
  ipv6Nameservers: string[];
  searchDomains: string[];
  /** Lines KubeVirt's rules skip, said once in the log. */
  skipped: string[];
}

/** Go's strings.Fields: runs of white space separate fields. */
const fields = (line: string) => line.split(/\s+/).filter((f) => f !== '');

/** Go's net.ParseIP then To4: an IPv4-mapped IPv6 address is an IPv4 server. Zones are not addresses. */
function nameserverFamily(text: string): { family: 4 | 6; address: string } | undefined {
  if (isIPv4(text)) return { family: 4, address: text };
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped && isIPv4(mapped[1]!)) return { family: 4, address: mapped[1]! };
  return { family: 6, address: text.toLowerCase() };
}

export function parseResolvConf(text: string): PodDns {
  const out: PodDns = { ipv4Nameservers: [], ipv6Nameservers: [], searchDomains: [], skipped: [] };
  // bufio.ScanLines: lines end at \n, a trailing \r is dropped.
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.startsWith('nameserver')) {
      const f = fields(line);
      const server = f.length === 2 ? nameserverFamily(f[1]!) : undefined;
      if (!server) {
        out.skipped.push(line);
        continue;
      }
      (server.family === 4 ? out.ipv4Nameservers : out.ipv6Nameservers).push(server.address);
    } else if (line.startsWith('search')) {
      out.searchDomains.push(...fields(line.slice('search'.length)).map((d) => d.toLowerCase()));
    }
  }
  if (out.ipv4Nameservers.length === 0 && out.ipv6Nameservers.length === 0) {
    out.ipv4Nameservers.push(DEFAULT_NAMESERVER);
  }
  if (out.searchDomains.length === 0) out.searchDomains.push(DEFAULT_SEARCH_DOMAIN);
  return out;
}

/** The first of the longest names: the domain name the guest gets (option 15). */
export function longestDomain(domains: readonly string[]): string {
  let selected = '';
  for (const d of domains) if (d.length > selected.length) selected = d;
  return selected;
}

/**
 * `<subdomain>.<longest search domain containing ".svc.">` in front of the list, unless there is no such domain
 * or it already starts with the subdomain: old resolvers' limits kept kubelet from writing it itself.
 */
export function withSubdomain(searchDomains: readonly string[], subdomain: string): string[] {
  if (!subdomain) return [...searchDomains];
  const serviceDomain = longestDomain(searchDomains.filter((d) => d.includes('.svc.')));
  if (serviceDomain === '' || serviceDomain.startsWith(`${subdomain}.`)) return [...searchDomains];
  return [`${subdomain}.${serviceDomain}`, ...searchDomains];
}

/** The DNS part of a DHCPv4 lease (options 6, 119, 15), the same for both bindings (KubeVirt's StartDHCP). */
export function dhcpV4Dns(dns: PodDns, subdomain: string) {
  const searchDomains = withSubdomain(dns.searchDomains, subdomain);
  return { dnsServers: dns.ipv4Nameservers, searchDomains, domainName: longestDomain(searchDomains) };
}
