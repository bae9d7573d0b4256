// discoverPodInterface: the facts of a pod link read from inside its namespace (ip -j addr / route) plus
// the pod's resolv.conf and hostname.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { CommandError, InterfaceNotFoundError, ResolvConfError } from './errors.js';
import { checkNetns, ipJson } from './exec.js';
import { isGlobalUnicast } from './cidr.js';
import type { IpLink } from './links.js';
import type { PodInterfaceFacts, PodRoute } from './gen/virtlauncher/netsetup/v1/netsetup.js';

export interface DiscoverOptions {
  /** Default: /etc/netns/NETNS/resolv.conf (what `ip netns exec` shows the pod) if present, else /etc/resolv.conf. */
  resolvConfPath?: string;
  /** Default: this host's name (a network namespace has none of its own). */
  hostname?: string;
}

interface IpRoute {
  dst: string;
  gateway?: string;
}

function resolvConfPathFor(netns: string, given: string | undefined): string {
  if (given) return given;
  const perNetns = `/etc/netns/${netns}/resolv.conf`;
  return existsSync(perNetns) ? perNetns : '/etc/resolv.conf';
}

async function readResolvConf(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new ResolvConfError(path, err instanceof Error ? err.message : String(err));
  }
}

async function readLink(netns: string, name: string): Promise<IpLink> {
  try {
    const [link] = await ipJson<IpLink>(netns, ['addr', 'show', 'dev', name]);
    if (link) return link;
  } catch (err) {
    if (!(err instanceof CommandError && /does not exist|Cannot find device/.test(err.stderr))) throw err;
  }
  throw new InterfaceNotFoundError(netns, name);
}

export async function discoverPodInterface(
  netns: string,
  name: string,
  options: DiscoverOptions = {},
): Promise<PodInterfaceFacts> {
  checkNetns(netns);
  // All reads at once; a missing link is reported as such before any other failure.
  const [link, routes4, routes6, resolvConf] = await Promise.allSettled([
    readLink(netns, name),
    ipJson<IpRoute>(netns, ['-4', 'route', 'show', 'dev', name]),
    ipJson<IpRoute>(netns, ['-6', 'route', 'show', 'dev', name]),
    readResolvConf(resolvConfPathFor(netns, options.resolvConfPath)),
  ]).then((results) => {
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw results[0].status === 'rejected' ? results[0].reason : failed.reason;
    return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [IpLink, IpRoute[], IpRoute[], string];
  });
  const addrs = (family: string) =>
    (link.addr_info ?? [])
      .filter((a) => a.family === family && isGlobalUnicast(a.local))
      .map((a) => ({ address: a.local, prefixLength: a.prefixlen }));
  const routes: PodRoute[] = [...routes4, ...routes6]
    .filter((r) => !r.dst.startsWith('fe80:') && !r.dst.startsWith('ff00:'))
    .map((r) => ({ destination: r.dst, gateway: r.gateway ?? '' }));
  return {
    name: link.ifname,
    mac: link.address ?? '',
    mtu: link.mtu,
    ifindex: link.ifindex,
    ipv4Addresses: addrs('inet'),
    ipv6Addresses: addrs('inet6'),
    routes,
    resolvConf,
    hostname: options.hostname ?? osHostname(),
  };
}
