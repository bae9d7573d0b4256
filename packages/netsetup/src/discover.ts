// discoverPodInterface: the facts of a pod link read from inside its namespace (ip -j addr / route): what
// KubeVirt's phase 1 reads of the pod interface (pkg/network/setup/netpod discover.go). The pod's resolv.conf
// and hostname are phase 2's (the launcher's), so they are not read here.
import { CommandError, InterfaceNotFoundError } from './errors.js';
import { checkNetns, ipJsonBatch } from './exec.js';
import { checkIfname } from './names.js';
import { isGlobalUnicast } from '@virt-launcher/shared';
import type { IpLink } from './links.js';
import type { PodInterfaceFacts, PodRoute } from './gen/virtlauncher/netsetup/v1/netsetup.js';

interface IpRoute {
  dst: string;
  gateway?: string;
  /** Absent for the main table. */
  table?: string;
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

export async function discoverPodInterface(netns: string, name: string): Promise<PodInterfaceFacts> {
  checkNetns(netns);
  checkIfname(name, 'pod interface');
  const linkAndRoutes = await readLinkAndRoutes(netns, name);
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
  };
}
