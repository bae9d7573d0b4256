// Test topology: a "node" namespace, a "pod" namespace whose eth0 is a veth to the node, and a "guest"
// namespace standing in for QEMU, attached to the pod's bridge by a veth (its pod end is enslaved in place of
// the tap). Every name starts with vlt-netsetup-; `destroy` removes the three namespaces and all in them.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';

export const NODE_IP = '10.213.0.1';
export const POD_IP = '10.213.0.2';
export const NODE_IP6 = 'fd00:213::1';
export const POD_IP6 = 'fd00:213::2';

const SERVER = fileURLToPath(new URL('./peer-server.mjs', import.meta.url));
const CLIENT = fileURLToPath(new URL('./peer-client.mjs', import.meta.url));

export async function sh(...args: string[]): Promise<string> {
  return (await execa(args[0]!, args.slice(1))).stdout;
}

export class Topology {
  readonly id = randomBytes(3).toString('hex');
  readonly pod = `vlt-netsetup-${this.id}-pod`;
  readonly node = `vlt-netsetup-${this.id}-node`;
  readonly guest = `vlt-netsetup-${this.id}-guest`;
  readonly dir = mkdtempSync(join(tmpdir(), 'vlt-netsetup-'));
  private servers: ResultPromise[] = [];

  async create(): Promise<void> {
    for (const ns of [this.pod, this.node, this.guest]) {
      await sh('ip', 'netns', 'add', ns);
      // No duplicate address detection anywhere: link-local addresses would otherwise change from "tentative"
      // to settled in the middle of a before/after comparison.
      await sh(
        'ip',
        'netns',
        'exec',
        ns,
        'sysctl',
        '-q',
        '-w',
        'net.ipv6.conf.all.accept_dad=0',
        'net.ipv6.conf.default.accept_dad=0',
      );
    }
    const batch = async (ns: string, lines: string[]) =>
      execa('ip', ['-n', ns, '-batch', '-'], { input: lines.join('\n') });
    // Links are made directly inside the namespaces: the host never sees them.
    await sh(
      'ip',
      '-n',
      this.pod,
      'link',
      'add',
      'eth0',
      'mtu',
      '1400',
      'type',
      'veth',
      'peer',
      'name',
      'nodeside',
      'netns',
      this.node,
    );
    await sh(
      'ip',
      '-n',
      this.pod,
      'link',
      'add',
      'guestport',
      'type',
      'veth',
      'peer',
      'name',
      'geth0',
      'netns',
      this.guest,
    );
    await batch(this.pod, [
      'link set lo up',
      `addr add ${POD_IP}/24 dev eth0`,
      `addr add ${POD_IP6}/64 dev eth0 nodad`,
      'link set eth0 up',
    ]);
    await batch(this.node, [
      'link set lo up',
      `addr add ${NODE_IP}/24 dev nodeside`,
      `addr add ${NODE_IP6}/64 dev nodeside nodad`,
      'link set nodeside mtu 1400',
      'link set nodeside up',
    ]);
    // The guest configures itself as the plan's DHCP config tells it to.
    await batch(this.guest, [
      'link set lo up',
      'link set geth0 mtu 1400',
      'addr add 10.0.2.2/24 dev geth0',
      'addr add fd10:0:2::2/120 dev geth0 nodad',
      'link set geth0 up',
      'route add default via 10.0.2.1',
      'route add default via fd10:0:2::1',
    ]);
  }

  /** Puts the guest's veth on the bridge (what QEMU's use of the tap stands for). */
  async plugGuest(bridge: string): Promise<void> {
    await sh('ip', '-n', this.pod, 'link', 'set', 'guestport', 'master', bridge, 'mtu', '1400', 'up');
  }

  /** Starts a peer server in `ns` (ports as numbers, or "udp:N"); resolves once it listens. */
  async serve(ns: string, name: string, ports: Array<number | string>): Promise<void> {
    const child = execa('ip', ['netns', 'exec', ns, process.execPath, SERVER, name, ...ports.map(String)], {
      reject: false,
    });
    this.servers.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.on('exit', () => reject(new Error(`peer server in ${ns} exited`)));
    });
  }

  /**
   * One TCP connection (or UDP datagram) from `ns`; the server's answer, or null when refused / unanswered.
   * `attempts` > 1 tolerates links that are still coming up (neighbour discovery, bridge port state).
   */
  async connect(
    ns: string,
    address: string,
    port: number,
    attempts = 1,
    protocol: 'tcp' | 'udp' = 'tcp',
  ): Promise<string | null> {
    const args = ['netns', 'exec', ns, process.execPath, CLIENT, address, String(port), protocol];
    for (let i = 0; i < attempts; i += 1) {
      const r = await execa('ip', args, { reject: false });
      if (r.exitCode === 0 && r.stdout.trim() !== '') return r.stdout.trim();
      if (i + 1 < attempts) await new Promise((res) => setTimeout(res, 300));
    }
    return null;
  }

  async destroy(): Promise<void> {
    for (const s of this.servers) s.kill('SIGTERM');
    await Promise.allSettled(this.servers);
    for (const ns of [this.pod, this.node, this.guest]) await execa('ip', ['netns', 'del', ns], { reject: false });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
