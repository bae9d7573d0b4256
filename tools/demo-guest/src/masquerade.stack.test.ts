// Masquerade with a VMI's own choices, end to end on one TCG guest: a pod namespace whose eth0 has an IPv4 and an
// IPv6 address (a veth to a "node" namespace), netsetup planning from the VMI (vmNetworkCIDR 10.11.12.0/24,
// vmIPv6NetworkCIDR fd20:5::/120, port 80, dhcpOptions) and applying it, virt-dhcp serving the DHCP config the launcher's phase 2 computes
// (DHCPv4, DHCPv6, router advertisements), and QEMU on the tap. The guest must hold the custom addresses, print
// the DHCP options it got, reach the node through NAT in both families (the node sees the pod's addresses), and
// serve port 80 to the node through the pod's addresses. Teardown must leave no table, link or namespace.
// The hypervisor is chosen: QEMU runs with -accel tcg, so the result does not depend on /dev/kvm.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DhcpServerConfig } from '@virt-launcher/contracts';
import { masqueradeDhcpConfig, parseResolvConf, withVmiDhcpOptions } from '@virt-launcher/launcher';
import {
  applyPlan,
  discoverPodInterface,
  masqueradeRequestFor,
  planMasquerade,
  teardown,
  type MasqueradePlan,
} from '@virt-launcher/netsetup';
import { ensureGuest, type DemoGuest } from './guest.js';
import { RunningGuest } from './qemu.js';

const run = promisify(execFile);
const repoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DHCP_CLI = join(repoDir, 'packages', 'dhcp', 'dist', 'cli.js');
// Generous: TCG on two cores shared with other suites. Bounds, never assertions.
const BOUND_MS = 180_000;
const PROBE_PORT = 8080;

const id = randomBytes(3).toString('hex');
const POD = `vlt-demo-guest-${id}-pod`;
const NODE = `vlt-demo-guest-${id}-node`;
const PRIVATE_VALUE = `vlt-${id}`;

const vmi = {
  metadata: { name: 'masq', namespace: 'default', annotations: {} },
  spec: {
    networks: [{ name: 'default', pod: { vmNetworkCIDR: '10.11.12.0/24', vmIPv6NetworkCIDR: 'fd20:5::/120' } }],
    domain: {
      devices: {
        interfaces: [
          {
            name: 'default',
            masquerade: {},
            ports: [{ port: 80 }],
            dhcpOptions: {
              bootFileName: 'vlt-boot.ipxe',
              tftpServerName: 'tftp.vlt.test',
              ntpServers: ['10.11.12.1'],
              privateOptions: [{ option: 240, value: PRIVATE_VALUE }],
            },
          },
        ],
      },
    },
  },
};

/** The node: accepts the guest's probes and fetches pages on request; one JSON line per event on stdout. */
const NODE_HELPER = `
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
const srv = createServer((s) => {
  let data = '';
  s.on('data', (d) => (data += d));
  s.on('end', () => { out({ event: 'probe', remote: s.remoteAddress, data }); s.end(); });
});
srv.listen(${PROBE_PORT}, '::', () => out({ event: 'listening' }));
createInterface({ input: process.stdin }).on('line', async (url) => {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(20000) });
    out({ event: 'get', url, status: r.status, body: await r.text() });
  } catch (e) { out({ event: 'get', url, error: String(e) }); }
});`;

class NodeHelper {
  readonly events: Array<Record<string, string | number>> = [];
  private waiters: Array<() => void> = [];
  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      this.events.push(JSON.parse(line) as Record<string, string | number>);
      for (const w of this.waiters) w();
    });
  }
  /** Resolves with the first event that matches; rejects after a bound. */
  async next(match: (e: Record<string, string | number>) => boolean): Promise<Record<string, string | number>> {
    const deadline = Date.now() + BOUND_MS;
    for (;;) {
      const e = this.events.find(match);
      if (e) return e;
      if (Date.now() > deadline || this.child.exitCode !== null)
        throw new Error(`no such node event: ${JSON.stringify(this.events)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 1000);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
      this.waiters = [];
    }
  }
  get(url: string) {
    this.child.stdin!.write(`${url}\n`);
    return this.next((e) => e.event === 'get' && e.url === url);
  }
}

async function sh(...args: string[]): Promise<string> {
  return (await run(args[0]!, args.slice(1))).stdout;
}

async function makeNoCloudIso(dir: string): Promise<string> {
  await writeFile(join(dir, 'meta-data'), JSON.stringify({ 'instance-id': `masq-${id}`, 'local-hostname': 'masq' }));
  // Serves port 80 from the guest on both families (busybox httpd listens on [::]).
  await writeFile(
    join(dir, 'user-data'),
    `#!/bin/sh\nmkdir -p /www && echo "page ${id}" > /www/index.html\nhttpd -p 80 -h /www\n`,
  );
  const iso = join(dir, 'nocloud.iso');
  await run('genisoimage', ['-quiet', '-output', iso, '-volid', 'cidata', '-joliet', '-rock', dir]);
  return iso;
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

let guestImage: DemoGuest;
let work = '';
let plan: MasqueradePlan;
let dhcp: ChildProcess | undefined;
let node: NodeHelper | undefined;
let guest: RunningGuest | undefined;

beforeAll(async () => {
  guestImage = await ensureGuest();
  work = await mkdtemp(join(tmpdir(), 'vlt-demo-guest-masq-'));
  await sh('ip', 'netns', 'add', POD);
  await sh('ip', 'netns', 'add', NODE);
  // The pod's eth0 as a CNI would leave it: both families, default routes towards the node, MTU 1400.
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
  await sh('ip', '-n', POD, 'addr', 'add', '10.244.7.7/24', 'dev', 'eth0');
  await sh('ip', '-n', POD, 'addr', 'add', 'fd00:10:244::7/64', 'dev', 'eth0', 'nodad');
  await sh('ip', '-n', NODE, 'addr', 'add', '10.244.7.1/24', 'dev', 'pod0');
  await sh('ip', '-n', NODE, 'addr', 'add', 'fd00:10:244::1/64', 'dev', 'pod0', 'nodad');
  for (const [ns, dev] of [
    [POD, 'eth0'],
    [POD, 'lo'],
    [NODE, 'pod0'],
    [NODE, 'lo'],
  ] as const)
    await sh('ip', '-n', ns, 'link', 'set', dev, 'up');
  await sh('ip', '-n', POD, 'route', 'add', 'default', 'via', '10.244.7.1');
  await sh('ip', '-n', POD, '-6', 'route', 'add', 'default', 'via', 'fd00:10:244::1');
  const resolvConf = join(work, 'resolv.conf');
  await writeFile(resolvConf, 'search default.svc.cluster.local\nnameserver 10.96.0.10\nnameserver fd00:10:96::a\n');

  // virt-handler's phase 1, from the VMI: discover, plan, apply. QEMU runs as root here, so the tap is root's.
  const facts = await discoverPodInterface(POD, 'eth0');
  plan = planMasquerade(masqueradeRequestFor(vmi, 'default', facts, { tapUid: 0, tapGid: 0 }));
  await applyPlan(plan, POD);
  // The launcher's phase 2 works the lease out from the pod (its generator, fed the facts this test made).
  const link = { mtu: facts.mtu, ipv4: facts.ipv4Addresses.map((a) => a.address) };
  const dhcpConfig = masqueradeDhcpConfig({
    iface: 'default',
    pod: { ...link, name: 'eth0', mac: facts.mac, ipv6: facts.ipv6Addresses.map((a) => a.address) },
    bridge: { ...link, name: 'k6t-eth0', mac: plan.bridge!.mac, ipv4: [], ipv6: [] },
    network: vmi.spec.networks[0]!.pod,
    dns: parseResolvConf(await readFile(resolvConf, 'utf8')),
    subdomain: '',
    hostname: 'masq',
  });
  const options = vmi.spec.domain.devices.interfaces[0]!.dhcpOptions;
  const cache = join(work, 'dhcp-config.json');
  await writeFile(cache, JSON.stringify(DhcpServerConfig.toJSON(withVmiDhcpOptions(dhcpConfig, options, 'default'))));

  dhcp = spawn('ip', ['netns', 'exec', POD, process.execPath, DHCP_CLI, 'serve', '--config', cache], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    dhcp!.stderr!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (seen.includes('router advertisements on')) resolve();
    });
    dhcp!.on('exit', (code) => reject(new Error(`virt-dhcp exited ${code}: ${seen}`)));
  });
  node = new NodeHelper(
    spawn('ip', ['netns', 'exec', NODE, process.execPath, '--input-type=module', '-e', NODE_HELPER], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  await node.next((e) => e.event === 'listening');
}, 2 * BOUND_MS);

afterAll(async () => {
  guest?.kill();
  await guest?.exited;
  // The server and the node helper are gone before their namespaces are.
  await Promise.all([dhcp, node?.child].map(stopChild));
  await teardown('eth0', POD).catch(() => undefined);
  await run('ip', ['netns', 'del', POD]).catch(() => undefined);
  await run('ip', ['netns', 'del', NODE]).catch(() => undefined);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('masquerade from the VMI: custom CIDRs, IPv6 with DHCPv6 and RA, DHCP options, port 80', () => {
  it(
    'the guest gets what the VMI asked for and reaches the node, and the node reaches it, in both families',
    async () => {
      const iso = await makeNoCloudIso(await mkdtemp(join(work, 'ci-')));
      const args = ['-machine', 'q35', '-accel', 'tcg', '-m', '256', '-nographic', '-no-reboot'];
      args.push('-kernel', guestImage.kernel, '-initrd', guestImage.initrd);
      args.push(
        '-append',
        `${guestImage.cmdline} vlt.probe=10.244.7.1:${PROBE_PORT} vlt.probe6=fd00:10:244::1,${PROBE_PORT}`,
      );
      args.push('-drive', `file=${iso},format=raw,if=virtio,readonly=on`);
      args.push('-nic', 'tap,ifname=tap0,script=no,downscript=no,model=virtio-net-pci,mac=52:54:00:0b:0c:0d');
      guest = new RunningGuest(spawn('ip', ['netns', 'exec', POD, 'qemu-system-x86_64', ...args], { stdio: 'pipe' }));

      // DHCPv4 from the custom CIDR, with the pod's MTU and DNS.
      const lease = await guest.waitFor(/VLT-GUEST: lease ip=(\S+) router=(\S+) dns=(\S+) mtu=(\S*)/, BOUND_MS);
      expect(lease.slice(1, 5)).toEqual(['10.11.12.2', '10.11.12.1', '10.96.0.10', '1400']);
      // dhcpOptions: 67, 66, 42 and the private 240 (udhcpc hands unknown options over as hex).
      const options = (await guest.waitFor(/VLT-GUEST: dhcp-options ([^\r\n]*)/, BOUND_MS))[1]!;
      expect(options).toContain('bootfile=vlt-boot.ipxe');
      expect(options).toContain('tftp=tftp.vlt.test');
      expect(options).toContain('ntpsrv=10.11.12.1');
      expect(options.toLowerCase()).toContain(`opt240=${Buffer.from(PRIVATE_VALUE).toString('hex')}`);
      // DHCPv6 from the custom IPv6 CIDR with the pod's IPv6 DNS; the default route from the bridge's advertisement.
      const lease6 = await guest.waitFor(/VLT-GUEST: ipv6 ip=(\S+) dns=(\S+) router=(\S+)/, BOUND_MS);
      expect(lease6.slice(1, 4)).toEqual(['fd20:5::2', 'fd00:10:96::a', 'fe80::ff:fe00:0']);

      // Out through NAT: the node sees the pod's addresses, never the guest's.
      await guest.waitFor(/VLT-GUEST: probe (ok|failed)/, BOUND_MS);
      await guest.waitFor(/VLT-GUEST: ipv6-probe (ok|failed)/, BOUND_MS);
      const v4 = await node!.next((e) => e.event === 'probe' && e.data === 'hello-from-guest\n');
      expect(String(v4.remote).replace(/^::ffff:/, '')).toBe('10.244.7.7');
      const v6 = await node!.next((e) => e.event === 'probe' && e.data === 'hello-from-guest-v6\n');
      expect(v6.remote).toBe('fd00:10:244::7');

      // In through the declared port: the pod's addresses forward port 80 to the guest in both families.
      await guest.waitFor(/VLT-GUEST: ready/, BOUND_MS);
      for (const url of ['http://10.244.7.7/', 'http://[fd00:10:244::7]/']) {
        expect(await node!.get(url)).toMatchObject({ status: 200, body: `page ${id}\n` });
      }

      // Teardown: our tables and links go, nothing else of ours stays in the pod.
      guest.kill();
      await guest.exited;
      const report = await teardown('eth0', POD);
      expect(report.tablesDeleted.sort()).toEqual(['ip nat', 'ip6 nat']);
      expect(await sh('ip', 'netns', 'exec', POD, 'nft', 'list', 'ruleset')).toBe('');
      const links = JSON.parse(await sh('ip', '-n', POD, '-j', 'link', 'show')) as Array<{ ifname: string }>;
      expect(links.map((l) => l.ifname).sort()).toEqual(['eth0', 'lo']);
    },
    2 * BOUND_MS,
  );
});
