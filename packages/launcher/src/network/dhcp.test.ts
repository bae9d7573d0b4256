// The bridge binding's cache comes back unchanged; a missing, empty or corrupt cache is a typed error naming the
// file. The pod's resolv.conf is read only up to its bound.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import { DhcpConfigCacheError, readCachedDhcpConfig, readPodDns } from './dhcp.js';
import { RESOLV_CONF_MAX_BYTES } from './resolv-conf.js';

const cached = DhcpServerConfig.fromPartial({
  v4: { interfaceName: 'k6t-eth0', clientIpCidr: '10.244.1.7/24', clientMac: '02:00:00:0a:0b:0c', mtu: 1450 },
});

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-dhcp-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readCachedDhcpConfig', () => {
  it('returns the configuration written as vif-cache-eth0.pb, field for field', async () => {
    await writeFile(join(dir, 'vif-cache-eth0.pb'), DhcpServerConfig.encode(cached).finish());
    expect(await readCachedDhcpConfig(dir, 'eth0')).toEqual(cached);
  });

  it('falls back to vif-cache-eth0.json', async () => {
    await writeFile(join(dir, 'vif-cache-eth0.json'), JSON.stringify(DhcpServerConfig.toJSON(cached)));
    expect(await readCachedDhcpConfig(dir, 'eth0')).toEqual(cached);
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

describe('readPodDns', () => {
  it("reads the pod's resolv.conf up to its bound, and a missing one gives KubeVirt's defaults", async () => {
    const path = join(dir, 'resolv.conf');
    const head = 'nameserver 10.96.0.10\nsearch a.svc.cluster.local\n';
    // A line past the bound is never read: a hostile image cannot grow the launcher through this file.
    await writeFile(path, `${head}${'#'.repeat(RESOLV_CONF_MAX_BYTES)}\nnameserver 10.0.0.99\n`);
    const dns = await readPodDns(path);
    expect(dns.ipv4Nameservers).toEqual(['10.96.0.10']);
    expect(dns.searchDomains).toEqual(['a.svc.cluster.local']);
    expect(await readPodDns(join(dir, 'absent'))).toMatchObject({
      ipv4Nameservers: ['8.8.8.8'],
      searchDomains: ['cluster.local'],
    });
  });
});
