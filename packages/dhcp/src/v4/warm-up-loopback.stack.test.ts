// The loopback warm-up in a namespace of its own: it answers its own requests when `lo` is up, gives up quietly
// when it is down, and leaves no socket behind either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const ns = `vlt-dhcp-${randomBytes(3).toString('hex')}-lo`;
const dist = fileURLToPath(new URL('../../dist/v4/', import.meta.url));
const script = `
import { prepareV4 } from '${dist}prepare.js';
import { warmUpThroughLoopback } from '${dist}warm-up-loopback.js';
import { silentLogger } from '@virt-launcher/shared';
const p = prepareV4({ interfaceName: 'lo', serverIp: '10.0.2.1', clientIpCidr: '10.0.2.2/24', clientMac: '52:54:00:00:00:07',
  router: '', dnsServers: [], searchDomains: [], domainName: '', mtu: 0, hostname: '', routes: [], leaseSeconds: 0,
  ntpServers: [], tftpServerName: '', bootfileName: '', privateOptions: [] }, silentLogger);
process.stdout.write(String(await warmUpThroughLoopback(p)));
`;

const warmUp = async (): Promise<number> => {
  const r = await execa('ip', ['netns', 'exec', ns, process.execPath, '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
  });
  return Number(r.stdout);
};
const udp67 = async (): Promise<string> =>
  (await execa('ip', ['netns', 'exec', ns, 'ss', '-Hlun', 'sport = :67'])).stdout;

describe('warm-up through the loopback', () => {
  beforeAll(async () => {
    await execa('ip', ['netns', 'add', ns]);
  });
  afterAll(async () => {
    await execa('ip', ['netns', 'del', ns], { reject: false });
  });

  it('answers every request it sent itself when lo is up, then closes its socket', async () => {
    await execa('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    expect(await warmUp()).toBe(32);
    expect(await udp67()).toBe('');
  });

  it('answers none and still returns when lo is down', async () => {
    await execa('ip', ['-n', ns, 'link', 'set', 'lo', 'down']);
    expect(await warmUp()).toBe(0);
    expect(await udp67()).toBe('');
  });
});
