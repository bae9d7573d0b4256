// discoverPodInterface reads the link and the routes of both families in one `ip -batch` process: the facts must
// be exactly the main table's routes through that link, IPv4 before IPv6, whatever else the namespace holds.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverPodInterface } from './discover.js';
import { InterfaceNotFoundError, InvalidRequestError } from './errors.js';
import { sh } from './testing/topology.js';

const ns = `vlt-netsetup-${randomBytes(3).toString('hex')}-disc`;

beforeAll(async () => {
  await sh('ip', 'netns', 'add', ns);
  await sh('ip', 'netns', 'exec', ns, 'sysctl', '-q', '-w', 'net.ipv6.conf.default.accept_dad=0');
  for (const line of [
    'link add eth0 type veth peer name eth0-peer',
    'link add other type veth peer name other-peer',
    'addr add 10.213.7.2/24 dev eth0',
    'addr add fd00:213:7::2/64 dev eth0 nodad',
    'addr add 10.213.8.2/24 dev other',
    'link set eth0 up',
    'link set eth0-peer up',
    'link set other up',
    'link set other-peer up',
    'route add default via 10.213.7.1 dev eth0',
    'route add 192.168.50.0/24 via 10.213.7.1 dev eth0 table 100',
    'route add 172.16.0.0/16 via 10.213.8.1 dev other',
    '-6 route add default via fd00:213:7::1 dev eth0',
  ]) {
    await sh('ip', '-n', ns, ...line.split(' '));
  }
});

afterAll(async () => {
  await sh('ip', 'netns', 'del', ns).catch(() => undefined);
});

describe('discoverPodInterface in a namespace', () => {
  it('returns the link, its global addresses and its main-table routes of both families', async () => {
    const pod = await discoverPodInterface(ns, 'eth0');
    const mac = JSON.parse(await sh('ip', '-n', ns, '-j', 'link', 'show', 'dev', 'eth0')) as Array<{
      address: string;
      ifindex: number;
    }>;
    expect(pod).toMatchObject({ name: 'eth0', mac: mac[0]!.address, ifindex: mac[0]!.ifindex, mtu: 1500 });
    expect(pod.ipv4Addresses).toEqual([{ address: '10.213.7.2', prefixLength: 24 }]);
    expect(pod.ipv6Addresses).toEqual([{ address: 'fd00:213:7::2', prefixLength: 64 }]);
    // Not table 100's route, not the other link's, no link-local or multicast entries.
    expect(pod.routes).toEqual([
      { destination: 'default', gateway: '10.213.7.1' },
      { destination: '10.213.7.0/24', gateway: '' },
      { destination: 'fd00:213:7::/64', gateway: '' },
      { destination: 'default', gateway: 'fd00:213:7::1' },
    ]);
  });

  it('a missing link is InterfaceNotFoundError; a name ip -batch cannot carry is refused before any command', async () => {
    await expect(discoverPodInterface(ns, 'eth7')).rejects.toBeInstanceOf(InterfaceNotFoundError);
    await expect(discoverPodInterface(ns, 'eth0#x')).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
