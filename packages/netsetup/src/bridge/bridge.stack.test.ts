// The bridge binding in a real pod namespace (no guest: tools/demo-guest/src/bridge.stack.test.ts boots one):
// a second apply changes nothing, a failing line gives the pod interface back as it was, a name in the way is
// refused before anything changes, teardown restores the interface with its addresses and routes, and the
// vif-cache holds what KubeVirt's discoverbridge.go caches from the kernel's routes.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeVifCache } from '@virt-launcher/shared';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplyError } from '../errors.js';
import { discoverPodInterface } from '../discover.js';
import { LinkConflictError } from '../links.js';
import { applyBridgePlan, teardownBridge } from './apply.js';
import { writeBridgeDhcpCache } from './cli.js';
import { planBridge } from './plan.js';
import { bridgeRequestFor } from './vmi-request.js';

const id = randomBytes(3).toString('hex');
const POD = `vlt-netsetup-${id}-bpod`;
const NODE = `vlt-netsetup-${id}-bnode`;
const vmi = {
  spec: {
    networks: [{ name: 'default', pod: {} }],
    domain: { devices: { interfaces: [{ name: 'default', bridge: {} }] } },
  },
};

const sh = async (...args: string[]) => (await execa(args[0]!, args.slice(1))).stdout;

/** What a test compares before and after: names, MACs, addresses and routes of the pod namespace. */
async function snapshot(): Promise<string> {
  const links = await sh('ip', '-n', POD, '-br', 'link');
  const addrs = await sh('ip', '-n', POD, '-4', '-br', 'addr');
  const routes = await sh('ip', '-n', POD, '-4', 'route');
  return [links, addrs, routes].join('\n').replace(/[ \t]+/g, ' ');
}

async function plan() {
  const facts = await discoverPodInterface(POD, 'eth0');
  return planBridge(bridgeRequestFor(vmi, 'default', facts, { tapUid: 0, tapGid: 0 }));
}

let before = '';
beforeAll(async () => {
  await sh('ip', 'netns', 'add', POD);
  await sh('ip', 'netns', 'add', NODE);
  await sh(
    'ip',
    '-n',
    POD,
    'link',
    'add',
    'eth0',
    'mtu',
    '1400',
    'type',
    'veth',
    'peer',
    'name',
    'pod0',
    'netns',
    NODE,
  );
  await sh('ip', '-n', POD, 'addr', 'add', '10.213.9.7/24', 'dev', 'eth0');
  await sh('ip', '-n', POD, 'link', 'set', 'eth0', 'up');
  await sh('ip', '-n', NODE, 'link', 'set', 'pod0', 'up');
  await sh('ip', '-n', POD, 'route', 'add', 'default', 'via', '10.213.9.1');
  await sh('ip', '-n', POD, 'route', 'add', '10.77.0.0/16', 'via', '10.213.9.254');
  before = await snapshot();
});

afterAll(async () => {
  await execa('ip', ['netns', 'del', POD], { reject: false });
  await execa('ip', ['netns', 'del', NODE], { reject: false });
});

describe('applyBridgePlan / teardownBridge in a namespace', () => {
  it('a failing line rolls back: the pod interface keeps its name, MAC, addresses and routes', async () => {
    const p = await plan();
    // A plan from elsewhere with an MTU no tap takes: the batch fails after the rename and the bridge.
    const broken = { ...p, tap: { ...p.tap, mtu: 70000 } };
    const err = await applyBridgePlan(broken, POD).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplyError);
    expect(await snapshot()).toBe(before);
  });

  it('a link already named like the bridge is refused before anything changes', async () => {
    await sh('ip', '-n', POD, 'link', 'add', 'k6t-eth0', 'type', 'veth', 'peer', 'name', 'squat1');
    try {
      const err = await applyBridgePlan(await plan(), POD).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LinkConflictError);
      expect((err as Error).message).toMatch(/k6t-eth0/);
    } finally {
      await sh('ip', '-n', POD, 'link', 'del', 'k6t-eth0');
    }
    expect(await snapshot()).toBe(before);
  });

  it('applies once, finds itself in place the second time, and teardown gives everything back', async () => {
    const p = await plan();
    const first = await applyBridgePlan(p, POD);
    expect(first.noop).toBe(false);
    const links = JSON.parse(await sh('ip', '-n', POD, '-j', '-d', 'link', 'show')) as Array<{
      ifname: string;
      master?: string;
      address?: string;
    }>;
    const by = (n: string) => links.find((l) => l.ifname === n);
    expect(by('eth0')).toBeUndefined();
    expect(by('eth0-nic')).toMatchObject({ master: 'k6t-eth0', address: p.nicMac });
    expect(by('tap0')).toMatchObject({ master: 'k6t-eth0' });
    expect(await sh('ip', '-n', POD, '-4', '-br', 'addr', 'show', 'k6t-eth0')).toMatch(/169\.254\.75\.10\/32/);
    expect(await sh('ip', 'netns', 'exec', POD, 'sysctl', '-n', 'net.ipv4.conf.all.arp_ignore')).toBe('1');

    expect((await applyBridgePlan(p, POD)).noop).toBe(true);

    // The kernel lists the default route first: it gives the gateway; the subnet's own route is left out.
    const dir = await mkdtemp(join(tmpdir(), 'vif-cache-'));
    try {
      const path = await writeBridgeDhcpCache(dir, p);
      expect(decodeVifCache(await readFile(path, 'utf8'), path)).toEqual({
        name: '',
        ipv4: { address: '10.213.9.7', prefixLength: 24 },
        mac: p.guestMac,
        gateway: '10.213.9.1',
        routes: [{ gateway: '10.213.9.1' }, { destination: '10.77.0.0/16', gateway: '10.213.9.254' }],
        mtu: 0,
        ipamDisabled: false,
        subdomain: '',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    const report = await teardownBridge('eth0', POD);
    expect(report).toEqual({ linksDeleted: ['tap0', 'k6t-eth0'], podInterfaceRestored: true });
    expect(await snapshot()).toBe(before);
    expect(await sh('ip', 'netns', 'exec', POD, 'sysctl', '-n', 'net.ipv4.conf.all.arp_ignore')).toBe('0');
    // Nothing of ours is left: a second teardown finds no record.
    expect(await teardownBridge('eth0', POD)).toEqual({ linksDeleted: [], podInterfaceRestored: false });
  });
});
