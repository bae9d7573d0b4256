import { describe, expect, it } from 'vitest';
import { guestDns, parseResolvConf } from './resolvconf.js';

describe('resolv.conf to guest DNS', () => {
  it('splits nameservers by family, keeps search order, longest search is the domain', () => {
    const dns = guestDns(
      'search Default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\nnameserver fd00::a\n',
      '',
    );
    expect(dns).toEqual({
      ipv4Servers: ['10.96.0.10'],
      ipv6Servers: ['fd00::a'],
      searchDomains: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      domainName: 'default.svc.cluster.local',
    });
  });

  it('defaults to 8.8.8.8 and cluster.local', () => {
    expect(guestDns('# empty\n', '')).toEqual({
      ipv4Servers: ['8.8.8.8'],
      ipv6Servers: [],
      searchDomains: ['cluster.local'],
      domainName: 'cluster.local',
    });
  });

  it('skips nameserver lines with more than one value', () => {
    const parsed = parseResolvConf('nameserver 1.1.1.1 2.2.2.2\nnameserver 9.9.9.9\n');
    expect(parsed.nameservers).toEqual(['9.9.9.9']);
    expect(parsed.warnings).toHaveLength(1);
  });

  it('prepends <subdomain>.<longest svc domain> once', () => {
    const text = 'search ns1.svc.cluster.local svc.cluster.local cluster.local\n';
    expect(guestDns(text, 'mysub').searchDomains).toEqual([
      'mysub.ns1.svc.cluster.local',
      'ns1.svc.cluster.local',
      'svc.cluster.local',
      'cluster.local',
    ]);
    expect(guestDns(`search mysub.ns1.svc.cluster.local ns1.svc.cluster.local\n`, 'mysub').searchDomains).toHaveLength(
      2,
    );
    expect(guestDns('search example.com\n', 'mysub').searchDomains).toEqual(['example.com']);
  });
});
