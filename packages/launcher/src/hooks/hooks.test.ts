// The hook protocol against in-process sidecars on real unix sockets: discovery, ordering, versions,
// timeouts, and what each hook point sends and takes back.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookSidecar } from '../testing/hook-sidecar.js';
import type { SidecarOptions } from '../testing/hook-sidecar.js';
import { HookCallbacks } from './callbacks.js';
import type { CloudInitData } from './callbacks.js';
import { HookError, collectHookSidecars } from './collect.js';
import { preCloudInitIso } from './cloud-init.js';

const DOMAIN = "<domain type='qemu'><name>default_vm</name></domain>";
const vmi = Buffer.from('{"metadata":{"name":"vm"}}');
/** Appends a <description> naming the sidecar, so the order of a chain shows in the result. */
const tag = (who: string) => (xml: string) => xml.replace('</domain>', `<description>${who}</description></domain>`);

describe('hook sidecars', () => {
  let dir = '';
  let sidecars: HookSidecar[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-hooks-'));
  });
  afterEach(async () => {
    sidecars.splice(0).forEach((s) => s.close());
    sidecars = [];
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(container: string, o: SidecarOptions): Promise<HookSidecar> {
    const s = new HookSidecar(o);
    await s.listen(join(dir, container, 'hook.sock'));
    sidecars.push(s);
    return s;
  }

  it('runs OnDefineDomain hooks by priority (then name), each on the previous XML, with the VMI JSON', async () => {
    const low = await serve('c1', {
      name: 'low',
      hookPoints: [{ name: 'OnDefineDomain', priority: 1 }],
      onDefineDomain: tag('low'),
    });
    await serve('c2', {
      name: 'high',
      hookPoints: [{ name: 'OnDefineDomain', priority: 9 }],
      onDefineDomain: tag('high'),
    });
    await serve('c3', {
      name: 'b-mid',
      hookPoints: [{ name: 'OnDefineDomain', priority: 5 }],
      onDefineDomain: tag('b'),
    });
    await serve('c4', {
      name: 'a-mid',
      hookPoints: [{ name: 'OnDefineDomain', priority: 5 }],
      onDefineDomain: tag('a'),
    });
    const hooks = new HookCallbacks(await collectHookSidecars(dir, 4, { timeoutMs: 10_000, pollMs: 50 }));
    const xml = await hooks.onDefineDomain(DOMAIN, vmi);
    expect([...xml.matchAll(/<description>(\w+)<\/description>/g)].map((m) => m[1])).toEqual(['high', 'a', 'b', 'low']);
    expect(low.callsOf('OnDefineDomain')[0]?.request.vmi).toEqual(vmi);
  });

  it('waits for a sidecar whose socket appears late, polling the hooks directory', async () => {
    const collecting = collectHookSidecars(dir, 1, { timeoutMs: 10_000, pollMs: 50 });
    await new Promise((r) => setTimeout(r, 300));
    await serve('late', { name: 'late', hookPoints: [{ name: 'Shutdown', priority: 0 }] });
    expect([...(await collecting).keys()]).toEqual(['Shutdown']);
  });

  it("gives up after the timeout with KubeVirt's message when fewer sidecars show up", async () => {
    await serve('c1', { name: 'one', hookPoints: [] });
    const err = await collectHookSidecars(dir, 2, { timeoutMs: 500, pollMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookError);
    expect((err as Error).message).toBe('Failed to collect all expected sidecar hook sockets within given timeout');
  });

  it('refuses a sidecar without a supported callback version', async () => {
    await serve('c1', { name: 'future', hookPoints: [], versions: ['v2'] });
    const err = await collectHookSidecars(dir, 1, { timeoutMs: 5000, pollMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookError);
    expect((err as Error).message).toMatch(/does not expose a supported version. Exposed versions: \[v2\]/);
  });

  it('a hook answering garbage XML fails with a clear error naming the socket', async () => {
    await serve('bad', {
      name: 'bad',
      hookPoints: [{ name: 'OnDefineDomain', priority: 0 }],
      onDefineDomain: () => 'not <xml',
    });
    const hooks = new HookCallbacks(await collectHookSidecars(dir, 1, { timeoutMs: 5000, pollMs: 50 }));
    const err = await hooks.onDefineDomain(DOMAIN, vmi).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookError);
    expect((err as Error).message).toMatch(/OnDefineDomain hook of .*bad\/hook.sock returned invalid domain XML/);
  });

  it('calls each sidecar only for the points it registered; Shutdown only over v1alpha3', async () => {
    const v3 = await serve('v3', { name: 'v3', hookPoints: [{ name: 'Shutdown', priority: 0 }] });
    const v2 = await serve('v2', {
      name: 'v2',
      versions: ['v1alpha2'],
      hookPoints: [
        { name: 'Shutdown', priority: 0 },
        { name: 'OnDefineDomain', priority: 0 },
      ],
      onDefineDomain: tag('v2'),
    });
    const hooks = new HookCallbacks(await collectHookSidecars(dir, 2, { timeoutMs: 5000, pollMs: 50 }));
    await hooks.shutdown();
    expect(await hooks.onDefineDomain(DOMAIN, vmi)).toContain('<description>v2</description>');
    expect(v3.calls.map((c) => c.method)).toEqual(['Info', 'Shutdown']);
    expect(v2.calls.map((c) => c.method)).toEqual(['Info', 'OnDefineDomain']);
  });

  it('PreCloudInitIso: the resolved data goes in, a valid CloudInitData answer comes back, else the legacy source', async () => {
    await serve('ci', {
      name: 'ci',
      hookPoints: [{ name: 'PreCloudInitIso', priority: 0 }],
      preCloudInitIso: (data) => ({ cloudInitData: { ...data, UserData: `${String(data.UserData)}#hooked` } }),
    });
    const hooks = new HookCallbacks(await collectHookSidecars(dir, 1, { timeoutMs: 5000, pollMs: 50 }));
    const out = await preCloudInitIso(hooks, vmi, {
      noCloud: true,
      volumeName: 'cloudinit',
      source: { userDataBase64: Buffer.from('#cloud-config').toString('base64'), networkData: 'net' },
      userDataSecretDir: '',
      networkDataSecretDir: '',
      metaData: { 'instance-id': 'x' },
    });
    expect(out).toEqual({ userData: '#cloud-config#hooked', networkData: 'net' });
    const legacyOnly: CloudInitData = { DataSource: 'noCloud', UserData: 'u', NetworkData: '', VolumeName: 'v' };
    sidecars[0]!.close();
    await serve('ci', {
      name: 'ci2',
      hookPoints: [{ name: 'PreCloudInitIso', priority: 0 }],
      preCloudInitIso: () => ({ noCloud: { userData: 'from-legacy' } }),
    });
    const again = new HookCallbacks(await collectHookSidecars(dir, 1, { timeoutMs: 5000, pollMs: 50 }));
    expect(await again.preCloudInitIso(legacyOnly, vmi)).toEqual({ ...legacyOnly, UserData: 'from-legacy' });
  });

  it('without a PreCloudInitIso sidecar the source is used as it is', async () => {
    expect(await preCloudInitIso(undefined, vmi, {} as never)).toBeUndefined();
  });

  it('a count that is no count is refused', async () => {
    await expect(collectHookSidecars(dir, -1, { timeoutMs: 10 })).rejects.toBeInstanceOf(HookError);
  });
});
