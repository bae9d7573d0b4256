// The link half of a plan: what `ip -j -d addr show` says exists, and the `ip -batch` lines that take it to
// the plan (create if missing, change only what differs), so a second apply produces no line at all.
import { BadInputError } from './errors.js';
import type { BridgePlan, TapPlan } from './gen/virtlauncher/netsetup/v1/netsetup.js';

/** The parts of an `ip -j -d addr show` entry we read. */
export interface IpLink {
  ifindex: number;
  ifname: string;
  flags?: string[];
  mtu: number;
  address?: string;
  master?: string;
  linkinfo?: {
    info_kind?: string;
    info_data?: { type?: string; multi_queue?: boolean; user?: number; group?: number };
  };
  addr_info?: Array<{ family: string; local: string; prefixlen: number; scope: string }>;
}

/** A link of ours exists with a kind we would never have made: someone else's, left alone. */
export class LinkConflictError extends BadInputError {
  constructor(
    readonly link: string,
    readonly found: string,
    readonly wanted: string,
  ) {
    super(`link "${link}" exists as ${found || 'a plain device'}, not a ${wanted}; refusing to touch it`);
  }
}

export interface LinkSteps {
  lines: string[];
  /** Links this batch creates (deleted again if a later step fails). */
  created: string[];
}

function isUp(link: IpLink): boolean {
  return link.flags?.includes('UP') ?? false;
}

function tapMatches(link: IpLink, tap: TapPlan): boolean {
  const d = link.linkinfo?.info_data;
  // A tap's owner and queue mode are fixed at creation: a different one has to be made anew.
  return d?.type === 'tap' && d.user === tap.ownerUid && d.group === tap.ownerGid && !!d.multi_queue === tap.multiqueue;
}

/** Global addresses on our bridge beyond the plan's are removed; link-local ones belong to the kernel. */
function addressSteps(bridge: BridgePlan, link: IpLink | undefined): string[] {
  const have = (link?.addr_info ?? []).filter((a) => a.scope !== 'link').map((a) => `${a.local}/${a.prefixlen}`);
  return [
    ...have.filter((a) => !bridge.addresses.includes(a)).map((a) => `addr del ${a} dev ${bridge.name}`),
    // No duplicate address detection on the bridge: the VM network is private to this pod, and a tentative
    // gateway would leave an IPv6 guest without a router for the first seconds.
    ...bridge.addresses
      .filter((a) => !have.includes(a))
      .map((a) => `addr add ${a} dev ${bridge.name}${a.includes(':') ? ' nodad' : ''}`),
  ];
}

export function checkOwnLinks(links: readonly IpLink[], bridge: BridgePlan, tap: TapPlan): void {
  const b = links.find((l) => l.ifname === bridge.name);
  if (b && b.linkinfo?.info_kind !== 'bridge')
    throw new LinkConflictError(bridge.name, b.linkinfo?.info_kind ?? '', 'bridge');
  const t = links.find((l) => l.ifname === tap.name);
  if (t && t.linkinfo?.info_kind !== 'tun') throw new LinkConflictError(tap.name, t.linkinfo?.info_kind ?? '', 'tap');
}

export function linkSteps(links: readonly IpLink[], bridge: BridgePlan, tap: TapPlan): LinkSteps {
  checkOwnLinks(links, bridge, tap);
  const lines: string[] = [];
  const created: string[] = [];
  const b = links.find((l) => l.ifname === bridge.name);
  if (!b) {
    lines.push(`link add ${bridge.name} type bridge`);
    created.push(bridge.name);
  }
  // The MAC is set explicitly: otherwise a bridge takes the lowest MAC of its ports and changes with them.
  if (b?.address !== bridge.mac) lines.push(`link set ${bridge.name} address ${bridge.mac}`);
  if (b?.mtu !== bridge.mtu) lines.push(`link set ${bridge.name} mtu ${bridge.mtu}`);
  lines.push(...addressSteps(bridge, b));

  let t = links.find((l) => l.ifname === tap.name);
  if (t && !tapMatches(t, tap)) {
    lines.push(`link del ${tap.name}`);
    t = undefined;
  }
  if (!t) {
    const mq = tap.multiqueue ? ' multi_queue' : '';
    lines.push(`tuntap add dev ${tap.name} mode tap user ${tap.ownerUid} group ${tap.ownerGid}${mq}`);
    created.push(tap.name);
  }
  if (t?.mtu !== tap.mtu) lines.push(`link set ${tap.name} mtu ${tap.mtu}`);
  if (t?.master !== tap.master) lines.push(`link set ${tap.name} master ${tap.master}`);
  if (!t || !isUp(t)) lines.push(`link set ${tap.name} up`);
  if (!b || !isUp(b)) lines.push(`link set ${bridge.name} up`);
  return { lines, created };
}
