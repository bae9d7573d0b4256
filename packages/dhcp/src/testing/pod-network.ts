// Test fixture: a "pod" netns (bridge k6t-eth0 10.0.2.1/24 + fd10:0:2::1/120, and eth0 holding the default route)
// and a "guest" netns whose eth0 is a veth attached to the bridge. Names are vlt-dhcp-<random>-*; remove() always
// deletes both namespaces.
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';

export interface PodNetwork {
  pod: string;
  guest: string;
  /** The guest side's MAC address. */
  guestMac: string;
  /** Runs a command in a namespace. */
  exec(ns: string, cmd: string, args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  txPackets(ns: string, ifname: string): Promise<number>;
  remove(): Promise<void>;
}

async function ip(...args: string[]): Promise<void> {
  await execa('ip', args);
}

export async function createPodNetwork(opts: { ipv6?: boolean } = {}): Promise<PodNetwork> {
  const id = randomBytes(3).toString('hex');
  const pod = `vlt-dhcp-${id}-pod`;
  const guest = `vlt-dhcp-${id}-gst`;
  const exec = async (ns: string, cmd: string, args: string[]) => {
    const r = await execa('ip', ['netns', 'exec', ns, cmd, ...args], { reject: false });
    return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1 };
  };
  const remove = async () => {
    await execa('ip', ['netns', 'del', pod], { reject: false });
    await execa('ip', ['netns', 'del', guest], { reject: false });
  };
  try {
    await ip('netns', 'add', pod);
    await ip('netns', 'add', guest);
    await ip('-n', pod, 'link', 'set', 'lo', 'up');
    await ip('-n', guest, 'link', 'set', 'lo', 'up');
    // eth0 of the pod holds the default route, as on a real launcher pod: replies that follow the routing table
    // instead of the bridge leave here and never reach the guest.
    await ip('-n', pod, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0-peer');
    for (const dev of ['eth0', 'eth0-peer']) {
      await execa('ip', ['netns', 'exec', pod, 'sysctl', '-qw', `net.ipv6.conf.${dev}.disable_ipv6=1`]);
      await ip('-n', pod, 'link', 'set', dev, 'up');
    }
    await ip('-n', pod, 'addr', 'add', '192.168.50.2/24', 'dev', 'eth0');
    await ip('-n', pod, 'route', 'add', 'default', 'via', '192.168.50.1', 'dev', 'eth0');
    await ip('-n', pod, 'link', 'add', 'k6t-eth0', 'type', 'bridge');
    await ip('-n', pod, 'link', 'set', 'k6t-eth0', 'address', '02:00:00:00:00:00');
    await ip('-n', pod, 'addr', 'add', '10.0.2.1/24', 'dev', 'k6t-eth0');
    if (opts.ipv6) {
      // Link-local addresses stay tentative for a second of DAD and cannot send meanwhile; nobody else is here.
      await execa('ip', ['netns', 'exec', pod, 'sysctl', '-qw', 'net.ipv6.conf.k6t-eth0.accept_dad=0']);
      await ip('-n', pod, 'addr', 'add', 'fd10:0:2::1/120', 'dev', 'k6t-eth0', 'nodad');
    } else {
      // No IPv6 chatter (router solicitations, MLD) on the bridge: its packet counters then count DHCP only.
      await execa('ip', ['netns', 'exec', pod, 'sysctl', '-qw', 'net.ipv6.conf.k6t-eth0.disable_ipv6=1']);
    }
    await ip('-n', pod, 'link', 'add', 'tap0', 'type', 'veth', 'peer', 'name', 'gst0', 'netns', guest);
    await ip('-n', pod, 'link', 'set', 'tap0', 'master', 'k6t-eth0', 'up');
    await ip('-n', pod, 'link', 'set', 'k6t-eth0', 'up');
    await ip('-n', guest, 'link', 'set', 'gst0', 'name', 'eth0');
    if (opts.ipv6) await execa('ip', ['netns', 'exec', guest, 'sysctl', '-qw', 'net.ipv6.conf.eth0.accept_dad=0']);
    await ip('-n', guest, 'link', 'set', 'eth0', 'up');
    const link = JSON.parse((await execa('ip', ['-n', guest, '-j', 'link', 'show', 'eth0'])).stdout) as Array<{
      address: string;
    }>;
    return {
      pod,
      guest,
      guestMac: link[0]?.address ?? '',
      exec,
      async txPackets(ns, ifname) {
        const out = (await execa('ip', ['-n', ns, '-s', '-j', 'link', 'show', ifname])).stdout;
        const stats = JSON.parse(out) as Array<{ stats64: { tx: { packets: number } } }>;
        return stats[0]?.stats64.tx.packets ?? -1;
      },
      remove,
    };
  } catch (e) {
    await remove();
    throw e;
  }
}
