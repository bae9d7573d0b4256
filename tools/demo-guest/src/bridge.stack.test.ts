// Bridge binding end to end on one TCG guest (issue 18): a pod namespace with three interfaces, as CNI and
// Multus would leave them — eth0 (the pod network: 10.244.8.7/24, default route, MTU 1400), a secondary network
// "blue" with an address (192.168.50.7/24) and a secondary network "green" without one — each a veth to a
// "node" namespace. `virt-netsetup bridge` binds each NIC and writes its DHCP cache as virt-handler does; the
// launcher's phase 2 (bridgeDhcpConfig) turns each cache with IPAM into a virt-dhcp server. The guest must hold the pod's own addresses (with the pod MAC), reach the
// node from them, be reached by the node on them, and have only a link on "green". Teardown gives every pod
// interface back and leaves no bridge or tap. QEMU runs with -accel tcg: the result does not depend on /dev/kvm.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import { bridgeDhcpConfig, parseResolvConf } from '@virt-launcher/launcher';
import { fakeBridgeIpFor, hashedPodIfaceName } from '@virt-launcher/netsetup';
import { decodeVifCache, type VifCacheDhcpConfig } from '@virt-launcher/shared';
import { ensureGuest } from './guest.js';
import { RunningGuest } from './qemu.js';

const run = promisify(execFile);
const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const NETSETUP_CLI = join(repoDir, 'packages', 'netsetup', 'dist', 'cli.js');
const DHCP_CLI = join(repoDir, 'packages', 'dhcp', 'dist', 'cli.js');
// Generous: TCG on two cores shared with other suites. Bounds, never assertions.
const BOUND_MS = 180_000;
const PROBE_PORT = 8080;

const id = randomBytes(3).toString('hex');
const POD = `vlt-demo-guest-${id}-bpod`;
const NODE = `vlt-demo-guest-${id}-bnode`;
const BLUE = hashedPodIfaceName('blue');
const GREEN = hashedPodIfaceName('green');

/** Pod interface, node end, pod address (empty: no IPAM), node address. */
const LINKS = [
  { pod: 'eth0', node: 'pod0', podIp: '10.244.8.7/24', nodeIp: '10.244.8.1/24' },
  { pod: BLUE, node: 'blue0', podIp: '192.168.50.7/24', nodeIp: '192.168.50.1/24' },
  { pod: GREEN, node: 'green0', podIp: '', nodeIp: '' },
] as const;

const vmi = {
  metadata: { name: 'bridged', namespace: 'default' },
  spec: {
    networks: [
      { name: 'default', pod: {} },
      { name: 'blue', multus: { networkName: 'blue-net' } },
      { name: 'green', multus: { networkName: 'green-net' } },
    ],
    domain: {
      devices: {
        interfaces: [
          { name: 'default', bridge: {} },
          { name: 'blue', bridge: {} },
          { name: 'green', bridge: {}, macAddress: '02:00:00:6e:0e:01' },
        ],
      },
    },
  },
};

const sh = async (...args: string[]) => (await run(args[0]!, args.slice(1))).stdout;
const ipJson = async <T>(ns: string, ...args: string[]) => JSON.parse(await sh('ip', '-n', ns, '-j', ...args)) as T[];

/** Resolves with the first stderr chunk matching `ready`; rejects when the process exits first. */
function untilStderr(child: ChildProcess, ready: RegExp, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (ready.test(seen)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`${what} exited ${code}: ${seen}`)));
  });
}

let work = '';
let guest: RunningGuest | undefined;
const children: ChildProcess[] = [];
const probes: string[] = [];
const caches: Record<string, VifCacheDhcpConfig> = {};

beforeAll(async () => {
  const image = await ensureGuest();
  work = await mkdtemp(join(tmpdir(), 'vlt-demo-guest-bridge-'));
  await sh('ip', 'netns', 'add', POD);
  await sh('ip', 'netns', 'add', NODE);
  for (const l of LINKS) {
    await sh(
      'ip',
      '-n',
      POD,
      'link',
      'add',
      l.pod,
      'mtu',
      '1400',
      'type',
      'veth',
      'peer',
      'name',
      l.node,
      'netns',
      NODE,
    );
    if (l.podIp) await sh('ip', '-n', POD, 'addr', 'add', l.podIp, 'dev', l.pod);
    if (l.nodeIp) await sh('ip', '-n', NODE, 'addr', 'add', l.nodeIp, 'dev', l.node);
    await sh('ip', '-n', POD, 'link', 'set', l.pod, 'up');
    await sh('ip', '-n', NODE, 'link', 'set', l.node, 'up');
  }
  await sh('ip', '-n', POD, 'route', 'add', 'default', 'via', '10.244.8.1');
  const resolvConf = join(work, 'resolv.conf');
  await writeFile(resolvConf, 'search default.svc.cluster.local\nnameserver 10.96.0.10\n');
  const vmiFile = join(work, 'vmi.json');
  await writeFile(vmiFile, JSON.stringify(vmi));

  // virt-handler's phase 1 for each NIC, through the CLI. QEMU runs as root here, so the taps are root's.
  for (const iface of ['default', 'blue', 'green']) {
    await sh(
      process.execPath,
      NETSETUP_CLI,
      'bridge',
      '--netns',
      POD,
      '--vmi',
      vmiFile,
      '--iface',
      iface,
      '--dhcp-cache',
      work,
      '--tap-uid',
      '0',
      '--tap-gid',
      '0',
    );
  }
  // The launcher's part (phase 2): each cache as a stock virt-handler wrote it, read as the launcher reads it,
  // plus what only the pod knows; one server per cache with IPAM (green's says IPAMDisabled: none).
  const dns = parseResolvConf(await readFile(resolvConf, 'utf8'));
  for (const l of LINKS) {
    const path = join(work, `vif-cache-${l.pod}.json`);
    caches[l.pod] = decodeVifCache(await readFile(path, 'utf8'), path);
  }
  for (const [index, l] of LINKS.entries()) {
    const cache = caches[l.pod]!;
    const config = bridgeDhcpConfig({
      cache,
      path: '',
      podIface: l.pod,
      bridge: `k6t-${l.pod.replace(/^pod/, '')}`,
      bridgedNic: { name: `${l.pod.replace(/^pod/, '')}-nic`, mtu: 1400, mac: '', ipv4: [], ipv6: [] },
      serverIp: fakeBridgeIpFor(index),
      dns,
      subdomain: '',
      hostname: 'bridged',
    });
    if (!config) continue;
    const file = join(work, `dhcp-${l.pod}.json`);
    await writeFile(file, JSON.stringify(DhcpServerConfig.toJSON(config)));
    const dhcp = spawn('ip', ['netns', 'exec', POD, process.execPath, DHCP_CLI, 'serve', '--config', file], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(dhcp);
    await untilStderr(dhcp, /DHCPv4 server listening/, `virt-dhcp for ${l.pod}`);
  }
  // The node: records who connects to PROBE_PORT (the guest's probe from the pod's own address).
  const listener = spawn(
    'ip',
    [
      'netns',
      'exec',
      NODE,
      process.execPath,
      '-e',
      `require('net').createServer((s) => { s.on('data', (d) => console.log(s.remoteAddress + ' ' + String(d).trim())); s.on('end', () => s.end()); }).listen(${PROBE_PORT}, '0.0.0.0', () => console.error('listening'))`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(listener);
  createInterface({ input: listener.stdout! }).on('line', (line) => probes.push(line));
  await untilStderr(listener, /listening/, 'node listener');

  const mac = (pod: string) => caches[pod]?.mac ?? '';
  const args = ['-machine', 'q35', '-accel', 'tcg', '-m', '256', '-nographic', '-no-reboot'];
  args.push('-kernel', image.kernel, '-initrd', image.initrd);
  args.push('-append', `${image.cmdline} vlt.probe=10.244.8.1:${PROBE_PORT}`);
  for (const [tap, m] of [
    ['tap0', mac('eth0')],
    [`tap${BLUE.slice(3)}`, mac(BLUE)],
    [`tap${GREEN.slice(3)}`, vmi.spec.domain.devices.interfaces[2]!.macAddress!],
  ]) {
    args.push('-nic', `tap,ifname=${tap},script=no,downscript=no,model=virtio-net-pci,mac=${m}`);
  }
  guest = new RunningGuest(spawn('ip', ['netns', 'exec', POD, 'qemu-system-x86_64', ...args], { stdio: 'pipe' }));
}, 2 * BOUND_MS);

afterAll(async () => {
  guest?.kill();
  await guest?.exited;
  for (const c of children) c.kill('SIGTERM');
  await run('ip', ['netns', 'del', POD]).catch(() => undefined);
  await run('ip', ['netns', 'del', NODE]).catch(() => undefined);
  if (work) await rm(work, { recursive: true, force: true });
});

/** Node → guest: the node reaches the address the guest holds, through the pod's bridge. */
async function nodePings(address: string): Promise<void> {
  await sh('ip', 'netns', 'exec', NODE, 'busybox', 'ping', '-c', '1', '-w', '30', address);
}

describe('bridge binding: the guest holds the pod interfaces’ own addresses', () => {
  it(
    'pod network: the guest leases the pod IP (pod MAC, gateway, MTU, DNS), reaches the node from it and is reached on it',
    async () => {
      // What virt-handler's phase 1 caches (pkg/network/setup/netpod/discoverbridge.go): address, gateway, MAC.
      expect(caches.eth0).toMatchObject({ ipv4: { address: '10.244.8.7', prefixLength: 24 }, gateway: '10.244.8.1' });
      const lease = await guest!.waitFor(/VLT-GUEST: lease ip=(\S+) router=(\S+) dns=(\S+) mtu=(\S*)/, BOUND_MS);
      expect(lease.slice(1, 5)).toEqual(['10.244.8.7', '10.244.8.1', '10.96.0.10', '1400']);
      // The guest's own probe: the node sees the pod's address as the source (no NAT: the guest holds it).
      expect((await guest!.waitFor(/VLT-GUEST: probe (ok|failed)/, BOUND_MS))[1]).toBe('ok');
      expect(probes).toContain('10.244.8.7 hello-from-guest');
      await nodePings('10.244.8.7');
      // The pod namespace holds no address of the pod network any more: only the guest answers for it.
      const addrs = await ipJson<{ addr_info: Array<{ local: string }> }>(POD, 'addr', 'show');
      expect(addrs.flatMap((l) => l.addr_info.map((a) => a.local))).not.toContain('10.244.8.7');
    },
    2 * BOUND_MS,
  );

  it(
    'secondary network with an address: the guest leases it on its second NIC and the node reaches it there',
    async () => {
      const lease = await guest!.waitFor(/VLT-GUEST: lease (eth\d) (\S+)/, BOUND_MS);
      expect(lease.slice(1, 3)).toEqual(['eth1', '192.168.50.7/24']);
      await nodePings('192.168.50.7');
    },
    2 * BOUND_MS,
  );

  it(
    'secondary network without an address: no DHCP server, the guest NIC has a link through the bridge',
    async () => {
      expect(caches[GREEN]?.ipamDisabled).toBe(true);
      expect((await guest!.waitFor(/VLT-GUEST: (nolease|lease) eth2/, BOUND_MS))[1]).toBe('nolease');
      // The guest's DHCP tries crossed the bridge: its MAC was learned on the tap port, and the node's end got them.
      const fdb = await sh('bridge', '-n', POD, 'fdb', 'show', 'br', `k6t-${GREEN.slice(3)}`);
      expect(fdb).toMatch(new RegExp(`02:00:00:6e:0e:01 dev tap${GREEN.slice(3)}`));
      const rx = Number(await sh('ip', 'netns', 'exec', NODE, 'cat', '/sys/class/net/green0/statistics/rx_packets'));
      expect(rx).toBeGreaterThan(0);
    },
    2 * BOUND_MS,
  );

  it(
    'teardown gives every pod interface back with its addresses and leaves no bridge or tap',
    async () => {
      guest?.kill();
      await guest?.exited;
      for (const l of LINKS) {
        await sh(process.execPath, NETSETUP_CLI, 'bridge', '--teardown', '--netns', POD, '--pod-iface', l.pod);
      }
      const links = await ipJson<{ ifname: string; addr_info: Array<{ local: string; prefixlen: number }> }>(
        POD,
        'addr',
        'show',
      );
      expect(links.map((l) => l.ifname).sort()).toEqual(['eth0', BLUE, GREEN, 'lo'].sort());
      const v4 = (name: string) =>
        links
          .find((l) => l.ifname === name)!
          .addr_info.filter((a) => !a.local.includes(':'))
          .map((a) => `${a.local}/${a.prefixlen}`);
      expect([v4('eth0'), v4(BLUE), v4(GREEN)]).toEqual([['10.244.8.7/24'], ['192.168.50.7/24'], []]);
      expect(await sh('ip', '-n', POD, 'route', 'show', 'default')).toMatch(/default via 10\.244\.8\.1 dev eth0/);
    },
    2 * BOUND_MS,
  );
});
