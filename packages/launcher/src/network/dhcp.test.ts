// Phase 2's reads of what others wrote: the bridge binding's vif-cache file exactly as KubeVirt's virt-handler
// writes it (vectors recorded from KubeVirt's own Go types: packages/shared/testdata/kubevirt-vif-cache), turned
// into the lease KubeVirt's BridgeConfigGenerator and StartDHCP serve (pkg/network/dhcp/bridge.go,
// pkg/network/driver/common.go); a missing, truncated or mistyped file is a typed error naming the file and the
// field. The pod's resolv.conf is read only up to its bound.
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bridgeDhcpConfig, readVifCache } from './bridge-dhcp.js';
import { DhcpConfigCacheError, readPodDns } from './dhcp.js';
import { parseResolvConf, RESOLV_CONF_MAX_BYTES } from './resolv-conf.js';

const vectors = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/testdata/kubevirt-vif-cache');

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-dhcp-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const nic = { name: 'eth0-nic', mtu: 1400, mac: '02:aa:bb:cc:dd:ee', ipv4: [], ipv6: [] };
const dns = parseResolvConf('search ns1.svc.cluster.local svc.cluster.local\nnameserver 10.96.0.10\n');

async function fromVector(name: string) {
  await copyFile(join(vectors, `${name}.gojson`), join(dir, 'vif-cache-eth0.json'));
  const cache = await readVifCache(dir, 'eth0');
  const inputs = { cache, path: '', podIface: 'eth0', bridge: 'k6t-eth0', bridgedNic: nic, dns, hostname: 'vm' };
  return bridgeDhcpConfig({ ...inputs, serverIp: '169.254.75.10', subdomain: 'sub' });
}

describe('bridge phase 2 from the file a stock virt-handler writes', () => {
  it("serves the pod's old address to the guest's MAC with the gateway, routes, MTU of <iface>-nic and DNS", async () => {
    const config = await fromVector('ipv4-routes');
    expect(config?.v4).toMatchObject({
      interfaceName: 'k6t-eth0',
      serverIp: '169.254.75.10',
      clientMac: '02:aa:bb:cc:dd:ee',
      clientIpCidr: '10.244.7.7/24',
      router: '10.244.7.1',
      dnsServers: ['10.96.0.10'],
      searchDomains: ['sub.ns1.svc.cluster.local', 'ns1.svc.cluster.local', 'svc.cluster.local'],
      mtu: 1400,
      hostname: 'vm',
    });
    expect(config?.v4?.routes).toContainEqual({ destination: '0.0.0.0/0', gateway: '10.244.7.1' });
    expect(config?.v4?.routes).toContainEqual({ destination: '10.99.0.0/16', gateway: '10.244.7.254' });
    expect(config?.v6).toBeUndefined();
  });

  it('IPAMDisabled: no server, as KubeVirt starts none', async () => {
    expect(await fromVector('ipam-disabled')).toBeUndefined();
  });

  it('refuses a missing, truncated, non-JSON or mistyped file, naming the file and the field', async () => {
    const path = join(dir, 'vif-cache-eth0.json');
    await expect(readVifCache(dir, 'eth0')).rejects.toThrow(
      `DHCP configuration for pod interface eth0 (${path}): missing`,
    );
    const good = await (await import('node:fs/promises')).readFile(join(vectors, 'ipv4-routes.gojson'), 'utf8');
    for (const [text, field] of [
      [good.slice(0, good.length / 2), ''],
      ['not json at all', ''],
      [good.replace('"Mtu": 0', '"Mtu": "1500"'), 'Mtu'],
      [good.replace('"MAC": "Aqq7zN3u"', '"MAC": 42'), 'MAC'],
    ] as const) {
      await writeFile(path, text);
      const err = await readVifCache(dir, 'eth0').catch((e: unknown) => e);
      expect(err, text.slice(0, 40)).toBeInstanceOf(DhcpConfigCacheError);
      expect((err as DhcpConfigCacheError).path).toBe(path);
      if (field) expect((err as DhcpConfigCacheError).field).toContain(field);
    }
  });
});

describe('readPodDns', () => {
  it("reads the pod's resolv.conf up to its bound, and a missing one gives KubeVirt's defaults", async () => {
    const path = join(dir, 'resolv.conf');
    const head = 'nameserver 10.96.0.10\nsearch a.svc.cluster.local\n';
    // A line past the bound is never read: a hostile image cannot grow the launcher through this file.
    await writeFile(path, `${head}${'#'.repeat(RESOLV_CONF_MAX_BYTES)}\nnameserver 10.0.0.99\n`);
    const read = await readPodDns(path);
    expect(read.ipv4Nameservers).toEqual(['10.96.0.10']);
    expect(read.searchDomains).toEqual(['a.svc.cluster.local']);
    expect(await readPodDns(join(dir, 'absent'))).toMatchObject({
      ipv4Nameservers: ['8.8.8.8'],
      searchDomains: ['cluster.local'],
    });
  });
});
