import { describe, expect, it } from 'vitest';
import { masqueradeConfig, parseResolvConf } from './dhcp.js';
import { parseVmiRequest } from '../vmi.js';

describe('masquerade DHCP config', () => {
  it('reads nameservers and search domains from resolv.conf', () => {
    const text =
      'search ns.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\nnameserver fd00::10\noptions ndots:5\n';
    expect(parseResolvConf(text)).toEqual({
      dnsServers: ['10.96.0.10'],
      searchDomains: ['ns.svc.cluster.local', 'svc.cluster.local'],
    });
  });

  it("builds KubeVirt's 10.0.2.0/24 config on k6t-<pod iface>", () => {
    const vmi = parseVmiRequest(
      Buffer.from(JSON.stringify({ metadata: { name: 'vm', namespace: 'ns' }, spec: { subdomain: 'sub' } })),
    );
    const cfg = masqueradeConfig('eth0', vmi, { mtu: 1400, dnsServers: ['10.96.0.10'], searchDomains: ['x'] }) as {
      v4: Record<string, unknown>;
    };
    expect(cfg.v4).toMatchObject({
      interfaceName: 'k6t-eth0',
      serverIp: '10.0.2.1',
      clientIpCidr: '10.0.2.2/24',
      router: '10.0.2.1',
      clientMac: '',
      mtu: 1400,
      hostname: 'vm',
      dnsServers: ['10.96.0.10'],
      searchDomains: ['sub.ns.svc.cluster.local', 'x'],
    });
  });
});
