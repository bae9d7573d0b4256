// Router advertisements through the real raw socket, judged by the Linux kernel of the "guest" namespace: its
// eth0 accepts them (accept_ra=1, no forwarding) and must end up with a default route via the bridge's
// link-local address, the on-link /120 and the advertised MTU. Garbage solicitations sent before must not stop
// the server from doing so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type PodNetwork, createPodNetwork } from './testing/pod-network.js';
import { execa } from 'execa';
import { CLI, type CliProcess, startCli } from './testing/cli-process.js';

const SOCKET = fileURLToPath(new URL('../dist/ra/socket.js', import.meta.url));
const PRIVATE_ROOT = fileURLToPath(new URL('../../../tools/sandbox/private-root.sh', import.meta.url));
/** EUI-64 link-local of the bridge MAC 02:00:00:00:00:00. */
const BRIDGE_LINK_LOCAL = 'fe80::ff:fe00:0';

async function until<T>(what: string, probe: () => Promise<T | undefined>, tries = 120): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('router advertisements on the pod bridge', () => {
  let net: PodNetwork;
  let server: CliProcess;
  beforeAll(async () => {
    net = await createPodNetwork({ ipv6: true });
    // The guest side sends its own solicitations only when eth0 comes up: make them come after the server.
    await net.exec(net.guest, 'ip', ['link', 'set', 'eth0', 'down']);
    server = await startCli(net.pod, [
      '--interface',
      'k6t-eth0',
      '--client-ipv6',
      'fd10:0:2::2/120',
      '--server-mac',
      '02:00:00:00:00:00',
      '--dns6',
      'fd00::10',
      '--mtu',
      '1400',
      '--ra',
      // Long enough that only the answer to a solicitation can explain a route within the test's wait.
      '--ra-interval',
      '600',
      '--log-level',
      'debug',
    ]);
  });
  afterAll(async () => {
    await server?.stop();
    await net?.remove();
  });

  it('drops garbage solicitations, then gives the guest kernel its default route, prefix and MTU', async () => {
    await net.exec(net.guest, 'ip', ['link', 'set', 'eth0', 'up']);
    // Garbage: a zero-length option, a non-zero code, a truncated option; from the guest's own raw socket.
    const script = `import { openIcmp6Socket } from ${JSON.stringify(SOCKET)};
      const s = openIcmp6Socket('eth0', [], [], () => {});
      for (const hex of ['85000000000000000100', '8501000000000000', '850000000000000001025254']) s.send(Buffer.from(hex, 'hex'), 'ff02::2');
      s.close();`;
    const sent = await net.exec(net.guest, process.execPath, ['--input-type=module', '-e', script]);
    expect(sent.stderr).toBe('');
    expect(sent.exitCode).toBe(0);
    await until('the malformed messages to be logged', async () =>
      server.lines.filter((l) => l.msg === 'dropping malformed ICMPv6 message').length >= 3 ? true : undefined,
    );

    const route = await until('a default route from the advertisement', async () => {
      const out = await net.exec(net.guest, 'ip', ['-6', '-j', 'route', 'show', 'default']);
      const routes = JSON.parse(out.stdout || '[]') as Array<{ gateway?: string; protocol?: string; dev?: string }>;
      return routes.find((r) => r.protocol === 'ra');
    });
    expect(route).toMatchObject({ gateway: BRIDGE_LINK_LOCAL, dev: 'eth0' });
    const onLink = await net.exec(net.guest, 'ip', ['-6', '-j', 'route', 'show', 'fd10:0:2::/120']);
    // The kernel files the on-link prefix under its own name; only an advertised prefix carries an expiry.
    const prefixRoutes = JSON.parse(onLink.stdout) as Array<{ dev: string; expires?: number }>;
    expect(prefixRoutes).toEqual([expect.objectContaining({ dev: 'eth0' })]);
    expect(prefixRoutes[0]?.expires).toBeGreaterThan(0);
    const mtu = await net.exec(net.guest, 'cat', ['/proc/sys/net/ipv6/conf/eth0/mtu']);
    expect(mtu.stdout.trim()).toBe('1400');
    // Not autonomous: no SLAAC address in fd10:0:2::/120 appears; the address is DHCPv6's to give.
    const addrs = await net.exec(net.guest, 'ip', ['-6', '-j', 'addr', 'show', 'dev', 'eth0', 'scope', 'global']);
    expect(JSON.parse(addrs.stdout)[0]?.addr_info ?? []).toEqual([]);
  });
});

describe('router advertisements without CAP_NET_RAW', () => {
  let net: PodNetwork;
  beforeAll(async () => {
    net = await createPodNetwork({ ipv6: true });
  });
  afterAll(async () => {
    await net?.remove();
  });

  it('DHCPv6 still serves; the advertisements are a logged warning, not a failed start', async () => {
    // A non-root launcher keeps NET_BIND_SERVICE (ports 547/67) but has no raw sockets.
    const child = execa(
      'ip',
      [
        // repo-view: the CLI stays reachable for uid 65534 from a clone under a directory others cannot search.
        ...['netns', 'exec', net.pod, PRIVATE_ROOT, 'repo-view', '--'],
        ...['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'],
        ...['--inh-caps=+net_bind_service', '--ambient-caps=+net_bind_service'],
        ...[process.execPath, CLI, 'serve', '--interface', 'k6t-eth0', '--client-ipv6', 'fd10:0:2::2/120', '--ra'],
      ],
      { reject: false, buffer: false },
    );
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('router advertisements not started')) resolve();
      });
      void child.then((r) => reject(new Error(`virt-dhcp exited ${r.exitCode}: ${stderr}`)));
    });
    child.kill('SIGTERM');
    const result = await child;
    const lines = stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(lines.find((l) => l.msg === 'DHCPv6 server listening')).toBeDefined();
    expect(lines.find((l) => l.msg === 'router advertisements not started')?.reason).toMatch(/EPERM|not permitted/i);
    expect(result.exitCode).toBe(0);
  });
});
