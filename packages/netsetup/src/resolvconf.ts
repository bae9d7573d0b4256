// The guest's DNS settings from the pod's resolv.conf, with KubeVirt's defaults and its subdomain rule.
import { isIPv4, isIPv6 } from 'node:net';

export interface ResolvConf {
  nameservers: string[];
  searchDomains: string[];
  /** Lines that were skipped (e.g. a nameserver line with more than one value). */
  warnings: string[];
}

export const DEFAULT_NAMESERVER = '8.8.8.8';
export const DEFAULT_SEARCH_DOMAIN = 'cluster.local';

/** Raw parse: nameserver lines with exactly one value, every value of search lines, lower-cased. */
export function parseResolvConf(text: string): ResolvConf {
  const out: ResolvConf = { nameservers: [], searchDomains: [], warnings: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const [key, ...values] = line.split(/\s+/);
    if (key === 'nameserver') {
      if (values.length !== 1) {
        out.warnings.push(`skipped nameserver line with ${values.length} values: ${raw.trim()}`);
        continue;
      }
      out.nameservers.push(values[0]!);
    } else if (key === 'search' || key === 'domain') {
      // Like KubeVirt, only `search` feeds the list; `domain` alone is left to the resolver.
      if (key === 'search') out.searchDomains.push(...values.map((v) => v.toLowerCase()));
    }
  }
  return out;
}

export interface GuestDns {
  ipv4Servers: string[];
  ipv6Servers: string[];
  searchDomains: string[];
  /** Option 15: the longest search domain. */
  domainName: string;
}

/** `<subdomain>.<longest search domain containing ".svc.">` first, unless that domain already starts with it. */
function withSubdomain(search: string[], subdomain: string): string[] {
  if (!subdomain) return search;
  const svc = search.filter((d) => d.includes('.svc.')).sort((a, b) => b.length - a.length)[0];
  if (!svc) return search;
  const prefix = `${subdomain.toLowerCase()}.`;
  // Already qualified by the subdomain (the pod's own resolv.conf may carry it): nothing to add.
  if (svc.startsWith(prefix)) return search;
  const fqdn = `${prefix}${svc}`;
  return search.includes(fqdn) ? search : [fqdn, ...search];
}

export function guestDns(text: string, subdomain: string): GuestDns {
  const parsed = parseResolvConf(text);
  const nameservers = parsed.nameservers.length > 0 ? parsed.nameservers : [DEFAULT_NAMESERVER];
  const base = parsed.searchDomains.length > 0 ? parsed.searchDomains : [DEFAULT_SEARCH_DOMAIN];
  const searchDomains = withSubdomain(base, subdomain);
  const domainName = [...searchDomains].sort((a, b) => b.length - a.length)[0] ?? '';
  return {
    ipv4Servers: nameservers.filter((n) => isIPv4(n)),
    ipv6Servers: nameservers.filter((n) => isIPv6(n)),
    searchDomains,
    domainName,
  };
}
