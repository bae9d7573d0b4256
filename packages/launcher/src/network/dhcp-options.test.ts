import { describe, expect, it } from 'vitest';
import type { DhcpServerConfig } from '@virt-launcher/contracts';
import { dhcpOptionsOf, withVmiDhcpOptions, type VmiDhcpOptions } from './dhcp-options.js';

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

  it('refuses what KubeVirt cannot serve, naming the field, and drops private codes outside 224..254', () => {
    const at = 'spec.domain.devices.interfaces[default].dhcpOptions';
    // pkg/network/dhcp/server/server.go: a non-IPv4 NTP server stops KubeVirt's DHCP server from starting.
    expect(() => withVmiDhcpOptions(cached, { ntpServers: ['ntp.example'] }, 'default')).toThrow(
      `${at}.ntpServers[0] "ntp.example": not an IPv4 address`,
    );
    const hostile = { ntpServers: 'x', bootFileName: 7 } as unknown as VmiDhcpOptions;
    expect(() => withVmiDhcpOptions(cached, hostile, 'default')).toThrow(`${at}.ntpServers "x": must be a list`);
    const badCode = { privateOptions: [{ option: '240', value: 'v' }] } as unknown as VmiDhcpOptions;
    expect(() => withVmiDhcpOptions(cached, badCode, 'default')).toThrow(`${at}.privateOptions[0].option "240"`);
    const kept = withVmiDhcpOptions(cached, {
      privateOptions: [
        { option: 100, value: 'a' },
        { option: 254, value: 'b' },
      ],
    });
    expect(kept.v4?.privateOptions).toEqual([{ code: 254, value: Buffer.from('b') }]);
  });
});
