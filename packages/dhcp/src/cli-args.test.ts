import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { UsageError, parseServeArgs } from './cli-args.js';
import { CLI } from './testing/cli-process.js';

const base = ['serve', '--interface', 'k6t-eth0', '--server-ip', '10.0.2.1', '--client-ip', '10.0.2.2/24'];

describe('virt-dhcp flags', () => {
  it('maps every flag onto DhcpServerConfig', () => {
    const { config, logLevel } = parseServeArgs([
      ...base,
      '--client-mac',
      '52:54:00:00:00:01',
      '--router',
      '10.0.2.1',
      '--dns',
      '10.96.0.10,8.8.8.8',
      '--search',
      'a.svc.cluster.local,cluster.local',
      '--mtu',
      '1400',
      '--hostname',
      'vm',
      '--route',
      '192.168.1.0/24,10.0.2.1',
      '--route',
      '224.0.0.0/4,',
      '--lease-seconds',
      '60',
      '--private-option',
      '240=cafe',
      '--client-ipv6',
      'fd10:0:2::2/120',
      '--log-level',
      'debug',
    ]);
    expect(logLevel).toBe('debug');
    expect(config.v4).toMatchObject({
      interfaceName: 'k6t-eth0',
      clientMac: '52:54:00:00:00:01',
      dnsServers: ['10.96.0.10', '8.8.8.8'],
      searchDomains: ['a.svc.cluster.local', 'cluster.local'],
      mtu: 1400,
      hostname: 'vm',
      routes: [
        { destination: '192.168.1.0/24', gateway: '10.0.2.1' },
        { destination: '224.0.0.0/4', gateway: '' },
      ],
      leaseSeconds: 60,
      privateOptions: [{ code: 240, value: Buffer.from([0xca, 0xfe]) }],
    });
    expect(config.v6).toMatchObject({ interfaceName: 'k6t-eth0', clientIpCidr: 'fd10:0:2::2/120', leaseSeconds: 60 });
  });

  it('--ra announces the --client-ipv6 network with --mtu, --dns6 and its own timers', () => {
    const { config } = parseServeArgs([
      ...base,
      '--mtu',
      '1400',
      '--client-ipv6',
      'fd10:0:2::2/120',
      '--dns6',
      'fd00::10',
      '--ra',
      '--ra-lifetime',
      '600',
      '--ra-interval',
      '5',
    ]);
    expect(config.v6?.routerAdvert).toEqual({
      prefix: 'fd10:0:2::2/120',
      routerLifetimeSeconds: 600,
      intervalSeconds: 5,
      mtu: 1400,
      dnsServers: ['fd00::10'],
    });
    expect(parseServeArgs([...base, '--client-ipv6', 'fd10:0:2::2/120']).config.v6?.routerAdvert).toBeUndefined();
  });

  it('--config takes the whole configuration from a file and refuses other config flags beside it', () => {
    expect(parseServeArgs(['serve', '--config', '/x/vif-cache-eth0.pb', '--log-level', 'debug'])).toEqual({
      config: { v4: undefined, v6: undefined },
      configPath: '/x/vif-cache-eth0.pb',
      logLevel: 'debug',
    });
    expect(() => parseServeArgs(['serve', '--config', 'a.json', '--interface', 'k6t-eth0'])).toThrow(
      /drop --interface/,
    );
  });

  it.each([
    [[...base, '--ra']],
    [[...base, '--client-ipv6', 'fd10::2/120', '--ra', '--ra-lifetime', '9001']],
    [['serve']],
    [['run', '--interface', 'x']],
    [[...base, '--bogus', '1']],
    [[...base, '--mtu', 'big']],
    [[...base, '--route', '10.0.0.0/8']],
    [[...base, '--private-option', '240=xyz']],
    [['serve', '--interface', 'x', '--client-ip', '10.0.2.2/24']],
  ])('refuses %j', (argv) => {
    expect(() => parseServeArgs(argv)).toThrow(UsageError);
  });

  it('exits 2 with one line on bad flags and bad config', async () => {
    for (const args of [
      ['serve', '--nope'],
      [...base.slice(1), '--client-ip', 'not-a-cidr'],
    ]) {
      const argv = args[0] === 'serve' ? args : ['serve', ...args];
      const r = await execa(process.execPath, [CLI, ...argv], { reject: false });
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^virt-dhcp: /);
    }
  });

  it('exits 1 with a JSON error line when the interface does not exist', async () => {
    const r = await execa(
      process.execPath,
      [CLI, 'serve', '--interface', 'vlt-nope0', '--server-ip', '10.0.2.1', '--client-ip', '10.0.2.2/24'],
      { reject: false },
    );
    expect(r.exitCode).toBe(1);
    const line = JSON.parse(r.stderr.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ component: 'virt-dhcp', level: 'error' });
  });
});
