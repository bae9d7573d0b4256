// The pod's network: a "pod" namespace whose eth0 is a veth to a "node" namespace, like a CNI would leave it.
// Addresses come from TEST-NET-1 (192.0.2.0/24, RFC 5737), so nothing here can be mistaken for a real network.
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { CleanupStack } from './cleanup.js';

export interface PodNetwork {
  podNs: string;
  nodeNs: string;
  podIp: string;
  nodeIp: string;
  podIface: string;
}

export const POD_IP = '192.0.2.10';
export const NODE_IP = '192.0.2.1';

const ip = (...args: string[]) => execa('ip', args);

export async function createPodNetwork(
  id: string,
  cleanup: CleanupStack,
  searchDomains: string[],
): Promise<PodNetwork> {
  const podNs = `vlt-pod-${id}`;
  const nodeNs = `vlt-node-${id}`;
  await ip('netns', 'add', podNs);
  cleanup.push(`netns ${podNs}`, async () => void (await ip('netns', 'del', podNs)));
  await ip('netns', 'add', nodeNs);
  cleanup.push(`netns ${nodeNs}`, async () => void (await ip('netns', 'del', nodeNs)));
  // `ip netns exec` bind-mounts /etc/netns/<ns>/resolv.conf over /etc/resolv.conf: the pod's own resolver config,
  // which netsetup and the launcher's DHCP server read as a pod's processes would.
  const etc = path.join('/etc/netns', podNs);
  fs.mkdirSync(etc, { recursive: true });
  cleanup.push(`${etc}`, () => fs.rmSync(etc, { recursive: true, force: true }));
  fs.writeFileSync(
    path.join(etc, 'resolv.conf'),
    `nameserver ${NODE_IP}\nsearch ${searchDomains.join(' ')}\noptions ndots:5\n`,
  );
  await ip('-n', podNs, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'veth-pod', 'netns', nodeNs);
  await ip('-n', podNs, 'link', 'set', 'eth0', 'mtu', '1450');
  await ip('-n', nodeNs, 'link', 'set', 'veth-pod', 'mtu', '1450');
  await ip('-n', podNs, 'addr', 'add', `${POD_IP}/24`, 'dev', 'eth0');
  await ip('-n', nodeNs, 'addr', 'add', `${NODE_IP}/24`, 'dev', 'veth-pod');
  for (const [ns, dev] of [
    [podNs, 'lo'],
    [podNs, 'eth0'],
    [nodeNs, 'lo'],
    [nodeNs, 'veth-pod'],
  ] as const) {
    await ip('-n', ns, 'link', 'set', dev, 'up');
  }
  await ip('-n', podNs, 'route', 'add', 'default', 'via', NODE_IP);
  return { podNs, nodeNs, podIp: POD_IP, nodeIp: NODE_IP, podIface: 'eth0' };
}
