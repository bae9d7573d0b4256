// The launcher serves what the node side cached: the plan netsetup computes, written as netsetup's callers
// write it, must come back unchanged; a missing, empty or corrupt cache is a typed error naming the file.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import { MasqueradeRequest, planMasquerade } from '@virt-launcher/netsetup';
import { DhcpConfigCacheError, readCachedDhcpConfig } from './dhcp.js';

const plan = planMasquerade(
  MasqueradeRequest.fromPartial({
    pod: {
      name: 'eth0',
      mac: '0a:58:0a:f4:01:07',
      mtu: 1450,
      ifindex: 3,
      ipv4Addresses: [{ address: '10.244.1.7', prefixLength: 24 }],
      resolvConf: 'search NS.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\nnameserver fd00::10\n',
      hostname: 'vm',
    },
    subdomain: 'sub',
  }),
);

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-dhcp-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readCachedDhcpConfig', () => {
  it("returns netsetup's plan.dhcp written as vif-cache-eth0.pb, field for field", async () => {
    await writeFile(join(dir, 'vif-cache-eth0.pb'), DhcpServerConfig.encode(plan.dhcp!).finish());
    const config = await readCachedDhcpConfig(dir, 'eth0');
    expect(config).toEqual(plan.dhcp);
    // netsetup's resolv.conf rules reach the guest through the cache, not a second parser here.
    expect(config.v4).toMatchObject({
      interfaceName: 'k6t-eth0',
      clientIpCidr: '10.0.2.2/24',
      dnsServers: ['10.96.0.10'],
      searchDomains: ['sub.ns.svc.cluster.local', 'ns.svc.cluster.local', 'svc.cluster.local'],
      mtu: 1450,
    });
  });

  it('falls back to vif-cache-eth0.json', async () => {
    await writeFile(join(dir, 'vif-cache-eth0.json'), JSON.stringify(DhcpServerConfig.toJSON(plan.dhcp!)));
    expect(await readCachedDhcpConfig(dir, 'eth0')).toEqual(plan.dhcp);
  });

  it('refuses a missing cache, naming the pod interface and the file', async () => {
    const err = await readCachedDhcpConfig(dir, 'eth0').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DhcpConfigCacheError);
    expect(err).toMatchObject({ podInterface: 'eth0', path: join(dir, 'vif-cache-eth0.pb') });
    expect((err as Error).message).toMatch(/missing/);
  });

  it('refuses an empty cache (no v4, no v6)', async () => {
    await writeFile(join(dir, 'vif-cache-eth0.pb'), Buffer.alloc(0));
    await expect(readCachedDhcpConfig(dir, 'eth0')).rejects.toThrow(/neither a v4 nor a v6 part/);
  });

  it('refuses corrupt JSON with the path of the file', async () => {
    await writeFile(join(dir, 'vif-cache-eth0.json'), '{not json');
    await expect(readCachedDhcpConfig(dir, 'eth0')).rejects.toMatchObject({
      name: 'DhcpConfigCacheError',
      path: join(dir, 'vif-cache-eth0.json'),
    });
  });
});
