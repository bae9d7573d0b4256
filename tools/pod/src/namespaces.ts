// The pod's network: a "pod" namespace whose eth0 is a veth to a "node" namespace, like a CNI would leave it.
// Addresses come from TEST-NET-1 (192.0.2.0/24, RFC 5737) and the IPv6 documentation prefix (2001:db8::/32,
// RFC 3849), so nothing here can be mistaken for a real network. Which families the pod gets is the CNI's choice
// (--pod-ip-family): KubeVirt's phase 1 and 2 follow the addresses they find on eth0.
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import type { CleanupStack } from './cleanup.js';

export type PodIpFamily = 'ipv4' | 'ipv6' | 'dual';
export const POD_IP_FAMILIES: readonly PodIpFamily[] = ['ipv4', 'ipv6', 'dual'];

export interface PodNetwork {
  podNs: string;
  nodeNs: string;
  /** The pod's IPv4 address; empty in an IPv6-only pod. */
  podIp: string;
  nodeIp: string;
  /** The pod's IPv6 address; empty in an IPv4-only pod. */
  podIp6: string;
  nodeIp6: string;
  podIface: string;
}

export const POD_IP = '192.0.2.10';
export const NODE_IP = '192.0.2.1';
export const POD_IP6 = '2001:db8:10::a';
export const NODE_IP6 = '2001:db8:10::1';

const ip = (...args: string[]) => execa('ip', args);

export async function createPodNetwork(
  id: string,
  cleanup: CleanupStack,
  searchDomains: string[],
  family: PodIpFamily = 'ipv4',
): Promise<PodNetwork> {
  const v4 = family !== 'ipv6';
  const v6 = family !== 'ipv4';
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
    `nameserver ${v4 ? NODE_IP : NODE_IP6}\nsearch ${searchDomains.join(' ')}\noptions ndots:5\n`,
  );
  await ip('-n', podNs, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'veth-pod', 'netns', nodeNs);
  await ip('-n', podNs, 'link', 'set', 'eth0', 'mtu', '1450');
  await ip('-n', nodeNs, 'link', 'set', 'veth-pod', 'mtu', '1450');
  if (v4) {
    await ip('-n', podNs, 'addr', 'add', `${POD_IP}/24`, 'dev', 'eth0');
    await ip('-n', nodeNs, 'addr', 'add', `${NODE_IP}/24`, 'dev', 'veth-pod');
  }
  if (v6) {
    // nodad: the link is ours alone, and an address still in duplicate detection cannot be used yet.
    await ip('-n', podNs, 'addr', 'add', `${POD_IP6}/64`, 'dev', 'eth0', 'nodad');
    await ip('-n', nodeNs, 'addr', 'add', `${NODE_IP6}/64`, 'dev', 'veth-pod', 'nodad');
  }
  for (const [ns, dev] of [
    [podNs, 'lo'],
    [podNs, 'eth0'],
    [nodeNs, 'lo'],
    [nodeNs, 'veth-pod'],
  ] as const) {
    await ip('-n', ns, 'link', 'set', dev, 'up');
  }
  if (v4) await ip('-n', podNs, 'route', 'add', 'default', 'via', NODE_IP);
  if (v6) await ip('-n', podNs, '-6', 'route', 'add', 'default', 'via', NODE_IP6);
  return {
    podNs,
    nodeNs,
    podIp: v4 ? POD_IP : '',
    nodeIp: v4 ? NODE_IP : '',
    podIp6: v6 ? POD_IP6 : '',
    nodeIp6: v6 ? NODE_IP6 : '',
    podIface: 'eth0',
  };
}
