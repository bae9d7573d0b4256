// discoverPodInterface: the facts of a pod link read from inside its namespace (ip -j addr / route) plus
// the pod's resolv.conf and hostname.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { CommandError, InterfaceNotFoundError, ResolvConfError } from './errors.js';
import { checkNetns, ipJsonBatch } from './exec.js';
import { checkIfname } from './names.js';
import { isGlobalUnicast } from '@virt-launcher/shared';
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
  /** Absent for the main table. */
  table?: string;
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

interface LinkAndRoutes {
  link: IpLink;
  routes: IpRoute[];
}

/**
 * The link with its addresses and the main table's routes of both families through it, in one `ip` process
 * (`route show table all` lists IPv4 then IPv6; entries of other tables carry a `table` field).
 */
async function readLinkAndRoutes(netns: string, name: string): Promise<LinkAndRoutes> {
  try {
    const [links, routes] = (await ipJsonBatch(netns, [
      `addr show dev "${name}"`,
      `route show table all dev "${name}"`,
    ])) as [IpLink[], IpRoute[]];
    const link = links[0];
    if (link) return { link, routes: routes.filter((r) => r.table === undefined) };
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
  checkIfname(name, 'pod interface');
  // Both reads at once; a missing link is reported as such before any other failure.
  const [linkAndRoutes, resolvConf] = await Promise.allSettled([
    readLinkAndRoutes(netns, name),
    readResolvConf(resolvConfPathFor(netns, options.resolvConfPath)),
  ]).then(([l, r]) => {
    if (l.status === 'rejected') throw l.reason;
    if (r.status === 'rejected') throw r.reason;
    return [l.value, r.value] as const;
  });
  const { link } = linkAndRoutes;
  const addrs = (family: string) =>
    (link.addr_info ?? [])
      .filter((a) => a.family === family && isGlobalUnicast(a.local))
      .map((a) => ({ address: a.local, prefixLength: a.prefixlen }));
  const routes: PodRoute[] = linkAndRoutes.routes
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
