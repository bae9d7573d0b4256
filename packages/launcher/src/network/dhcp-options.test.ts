import { describe, expect, it } from 'vitest';
import type { DhcpServerConfig } from '@virt-launcher/contracts';
import { dhcpOptionsOf, withVmiDhcpOptions } from './dhcp-options.js';

const cached: DhcpServerConfig = {
  v4: {
    interfaceName: 'k6t-eth0',
    serverIp: '10.0.2.1',
    clientMac: '',
    clientIpCidr: '10.0.2.2/24',
    router: '10.0.2.1',
    dnsServers: ['10.96.0.10'],
    searchDomains: [],
    domainName: '',
    mtu: 1450,
    hostname: 'vm',
    routes: [],
    leaseSeconds: 0,
    ntpServers: ['10.0.0.1'],
    tftpServerName: 'old',
    bootfileName: '',
    privateOptions: [],
  },
  v6: undefined,
};

describe('withVmiDhcpOptions', () => {
  it("replaces the cache's options 42, 66, 67 and private ones with the VMI's", () => {
    const out = withVmiDhcpOptions(cached, {
      bootFileName: 'pxelinux.0',
      ntpServers: ['10.0.0.5'],
      privateOptions: [{ option: 240, value: 'extra' }],
    });
    expect(out.v4).toMatchObject({
      bootfileName: 'pxelinux.0',
      tftpServerName: '',
      ntpServers: ['10.0.0.5'],
      privateOptions: [{ code: 240, value: Buffer.from('extra') }],
      clientIpCidr: '10.0.2.2/24',
    });
    // The cache object itself is left as it was.
    expect(cached.v4?.tftpServerName).toBe('old');
  });

  it('keeps the cache when the VMI says nothing, and ignores a v6-only config', () => {
    expect(withVmiDhcpOptions(cached, undefined)).toBe(cached);
    const v6Only = { v4: undefined, v6: undefined };
    expect(withVmiDhcpOptions(v6Only, { bootFileName: 'x' })).toBe(v6Only);
  });

  it('reads dhcpOptions off an interface view only when it is an object', () => {
    expect(dhcpOptionsOf({ name: 'default', dhcpOptions: { bootFileName: 'a' } })).toEqual({ bootFileName: 'a' });
    expect(dhcpOptionsOf({ name: 'default', dhcpOptions: 'nope' })).toBeUndefined();
    expect(dhcpOptionsOf({ name: 'default' })).toBeUndefined();
  });
});
