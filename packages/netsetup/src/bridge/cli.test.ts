// writeBridgeDhcpCache: the file network phase 1 leaves for the launcher, as KubeVirt's cache package writes it
// (pkg/network/cache/cache.go: MarshalIndent bytes, file mode 0604, directory 0750).
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeVifCache } from '@virt-launcher/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VIF_CACHE_FILE_MODE, writeBridgeDhcpCache } from './cli.js';

// A config KubeVirt's own code wrote (packages/shared/testdata/kubevirt-vif-cache, see its README.md): what
// we write from it must be the same bytes.
const GO_VECTOR = join(import.meta.dirname, '../../../shared/testdata/kubevirt-vif-cache/ipv4-routes.gojson');
const goBytes = readFileSync(GO_VECTOR, 'utf8');
const plan = { podInterface: 'eth0', dhcpCache: decodeVifCache(goBytes, GO_VECTOR) };

let dir = '';
let umask = 0;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vif-cache-'));
  umask = process.umask(0o077);
});
afterEach(async () => {
  process.umask(umask);
  await rm(dir, { recursive: true, force: true });
});

describe('writeBridgeDhcpCache', () => {
  it("writes Go's bytes as vif-cache-<pod iface>.json, mode 0604 whatever the umask, nothing beside", async () => {
    const path = await writeBridgeDhcpCache(join(dir, 'kubevirt-private'), plan);
    expect(path).toBe(join(dir, 'kubevirt-private', 'vif-cache-eth0.json'));
    const text = await readFile(path, 'utf8');
    expect(text).toBe(goBytes);
    expect(decodeVifCache(text, path)).toEqual(plan.dhcpCache);
    expect((await stat(path)).mode & 0o777).toBe(VIF_CACHE_FILE_MODE);
    expect(await readdir(join(dir, 'kubevirt-private'))).toEqual(['vif-cache-eth0.json']);
  });

  it('replaces a previous file whole, and leaves no temporary file when it cannot write', async () => {
    const path = await writeBridgeDhcpCache(dir, { ...plan, dhcpCache: { ...plan.dhcpCache, ipamDisabled: true } });
    await writeBridgeDhcpCache(dir, plan);
    expect(decodeVifCache(await readFile(path, 'utf8'), path).ipamDisabled).toBe(false);
    const bad = { ...plan, dhcpCache: { ...plan.dhcpCache, mac: 'zz' } };
    await expect(writeBridgeDhcpCache(dir, bad)).rejects.toMatchObject({ name: 'VifCacheError', field: 'MAC' });
    expect(await readdir(dir)).toEqual(['vif-cache-eth0.json']);
  });
});
