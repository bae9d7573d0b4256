// The rules of KubeVirt's pkg/network/dns/resolveconf.go (ParseNameservers, ParseSearchDomains,
// DomainNameWithSubdomain, GetDomainName), case by case, including the lines it skips.
import { describe, expect, it } from 'vitest';
import { longestDomain, parseResolvConf, withSubdomain } from './resolv-conf.js';

describe('parseResolvConf (KubeVirt pkg/network/dns/resolveconf.go)', () => {
  it('splits nameservers by family and keeps the search order, lower-cased', () => {
    const dns = parseResolvConf(
      'search Default.svc.cluster.local svc.cluster.local cluster.local\r\nnameserver 10.96.0.10\nnameserver FD00::A\n',
    );
    expect(dns).toEqual({
      ipv4Nameservers: ['10.96.0.10'],
      ipv6Nameservers: ['fd00::a'],
      searchDomains: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      skipped: [],
    });
  });

  it('falls back to 8.8.8.8 and cluster.local, and an IPv6-only pod gets no IPv4 default', () => {
    expect(parseResolvConf('# nothing here\noptions ndots:5\n')).toMatchObject({
      ipv4Nameservers: ['8.8.8.8'],
      ipv6Nameservers: [],
      searchDomains: ['cluster.local'],
    });
    expect(parseResolvConf('nameserver fd00::10\n').ipv4Nameservers).toEqual([]);
  });

  it('skips what KubeVirt skips: two values on a line, a trailing comment, a bad address, a zone', () => {
    const dns = parseResolvConf(
      [
        'nameserver 1.1.1.1 2.2.2.2',
        'nameserver 3.3.3.3 # office',
        'nameserver not-an-ip',
        'nameserver fe80::1%eth0',
        'nameserver 010.0.0.1',
        'nameserver 9.9.9.9',
        '   nameserver 4.4.4.4',
        '\u0000\u00ff garbage line',
      ].join('\n'),
    );
    expect(dns.ipv4Nameservers).toEqual(['9.9.9.9']);
    expect(dns.skipped).toHaveLength(5);
  });

  it('an IPv4-mapped IPv6 server is an IPv4 server, as Go To4() makes it', () => {
    expect(parseResolvConf('nameserver ::ffff:10.96.0.10\n').ipv4Nameservers).toEqual(['10.96.0.10']);
  });

  it('takes every search line and every field of it, with no cap of its own', () => {
    const many = Array.from({ length: 1000 }, (_, n) => `d${n}.example.com`);
    const dns = parseResolvConf(`search ${many.slice(0, 500).join(' ')}\nsearch ${many.slice(500).join(' ')}\n`);
    expect(dns.searchDomains).toEqual(many);
  });
});

describe('withSubdomain (DomainNameWithSubdomain) and longestDomain (GetDomainName)', () => {
  it('prepends <subdomain>.<longest .svc. domain> unless it already starts with the subdomain', () => {
    const search = ['ns1.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
    expect(withSubdomain(search, 'mysub')).toEqual(['mysub.ns1.svc.cluster.local', ...search]);
    expect(withSubdomain(['mysub.ns1.svc.cluster.local', 'ns1.svc.cluster.local'], 'mysub')).toHaveLength(2);
    expect(withSubdomain(['example.com'], 'mysub')).toEqual(['example.com']);
    expect(withSubdomain(search, '')).toEqual(search);
  });

  it('the first of the longest names is the domain name', () => {
    expect(longestDomain(['ab.c', 'xy.z', 'a'])).toBe('ab.c');
    expect(longestDomain([])).toBe('');
  });
});
