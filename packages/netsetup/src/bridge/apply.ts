// applyBridgePlan / teardownBridge: the bridge binding in a pod namespace, under the same namespace lock as the
// masquerade binding. The apply is one `ip -batch` (plus two sysctls); when it fails part-way, the pod interface
// is given back as it was (name, MAC, addresses, routes) and every link this run made is deleted.
import { existsSync } from 'node:fs';
import { ApplyError, CommandError, InterfaceNotFoundError } from '../errors.js';
import { checkNetns, deleteLinks, ipBatch, ipJson, sysctlRead, sysctlWrite } from '../exec.js';
import { LinkConflictError, type IpLink } from '../links.js';
import { withNetnsLock } from '../netns-lock.js';
import { bridgeNameFor, checkIfname, tapNameFor } from '../names.js';
import { formatRecord, parseRecord, type BridgeRecord } from './record.js';
import type { BridgeBindingPlan } from './types.js';

const ARP_IGNORE = 'net/ipv4/conf/all/arp_ignore';
const HAS_IPV6 = existsSync('/proc/sys/net/ipv6');

type Link = IpLink & { ifalias?: string };

export interface BridgeApplyReport {
  /** True when the binding was already in place: nothing was run. */
  noop: boolean;
  linkCommands: string[];
  sysctlsWritten: Record<string, string>;
}

export interface BridgeTeardownReport {
  linksDeleted: string[];
  /** The pod interface got its name, MAC and addresses back. */
  podInterfaceRestored: boolean;
}

const kind = (l: Link | undefined) => l?.linkinfo?.info_kind ?? '';

/** The binding is complete: the port enslaved under its new name, the old name free, the tap on the bridge. */
export function bridgeBindingInPlace(
  links: readonly Link[],
  podIface: string,
  nic: string,
  bridge: string,
  tap: string,
) {
  const by = (n: string) => links.find((l) => l.ifname === n);
  return (
    kind(by(bridge)) === 'bridge' &&
    by(nic)?.master === bridge &&
    !by(podIface) &&
    by(tap)?.master === bridge &&
    kind(by(tap)) === 'tun'
  );
}

function checkLinks(netns: string, links: readonly Link[], plan: BridgeBindingPlan): void {
  const by = (n: string) => links.find((l) => l.ifname === n);
  if (!by(plan.podInterface)) throw new InterfaceNotFoundError(netns, plan.podInterface);
  for (const [name, wanted] of [
    [plan.nic, 'free name'],
    [plan.bridge.name, 'free name'],
    [plan.tap.name, 'free name'],
  ] as const) {
    if (by(name)) throw new LinkConflictError(name, kind(by(name)) || 'a device', wanted);
  }
}

/** The batch, in an order where every line only needs what the lines before it made. */
export function bridgeLinkLines(plan: BridgeBindingPlan, record: string): string[] {
  const { podInterface: pod, nic, bridge, tap } = plan;
  const mq = tap.multiqueue ? ' multi_queue' : '';
  return [
    `link set ${pod} down`,
    `addr flush dev ${pod}`,
    // KubeVirt then makes a dummy named like the pod interface that keeps its MAC and addresses; the dummy
    // driver is not in every kernel (it is absent on this project's CI machines), so the pod's addresses live on
    // only in the bridge's owner record and the DHCP configuration (docs/bridge.md#no-dummy).
    `link set ${pod} name ${nic}`,
    // The port gives its MAC up to the guest's NIC: no bridge port may hold the MAC the guest uses.
    `link set ${nic} address ${plan.nicMac}`,
    `link add ${bridge.name} type bridge`,
    `link set ${bridge.name} address ${bridge.mac}`,
    `link set ${bridge.name} alias ${record}`,
    ...bridge.addresses.map((a) => `addr add ${a} dev ${bridge.name}`),
    `link set ${nic} master ${bridge.name}`,
    // The port must not learn the guest's MAC as being on the pod's side.
    `link set ${nic} type bridge_slave learning off`,
    `tuntap add dev ${tap.name} mode tap user ${tap.ownerUid} group ${tap.ownerGid}${mq}`,
    `link set ${tap.name} mtu ${tap.mtu} master ${tap.master}`,
    `link set ${bridge.name} mtu ${bridge.mtu}`,
    `link set ${nic} up`,
    `link set ${tap.name} up`,
    `link set ${bridge.name} up`,
  ];
}

export async function applyBridgePlan(plan: BridgeBindingPlan, netns: string): Promise<BridgeApplyReport> {
  checkNetns(netns);
  for (const [n, what] of [
    [plan.podInterface, 'pod interface'],
    [plan.nic, 'bridge port'],
    [plan.bridge.name, 'bridge'],
    [plan.tap.name, 'tap'],
  ] as const)
    checkIfname(n, what);
  return withNetnsLock(netns, async () => {
    const links = await ipJson<Link>(netns, ['-d', 'addr', 'show']);
    if (bridgeBindingInPlace(links, plan.podInterface, plan.nic, plan.bridge.name, plan.tap.name)) {
      return { noop: true, linkCommands: [], sysctlsWritten: {} };
    }
    checkLinks(netns, links, plan);
    const prior = (await sysctlRead(netns, [ARP_IGNORE])).get(ARP_IGNORE) ?? '';
    const lines = bridgeLinkLines(plan, formatRecord(plan, prior));
    const sysctls = new Map<string, string>();
    if (plan.arpIgnore) sysctls.set(ARP_IGNORE, '1');
    // The port carries no address of its own in either family.
    if (HAS_IPV6) sysctls.set(`net/ipv6/conf/${plan.nic}/disable_ipv6`, '1');
    try {
      await ipBatch(netns, lines);
      await sysctlWrite(netns, sysctls);
    } catch (err) {
      const record = parseRecord(formatRecord(plan, prior))!;
      const undo = await restore(netns, record, plan.bridge.name, plan.tap.name).then(
        () => [] as string[],
        (e: unknown) => [String(e instanceof Error ? e.message : e)],
      );
      throw new ApplyError('links', err, undo.length === 0 ? ['links'] : [], undo);
    }
    return { noop: false, linkCommands: lines, sysctlsWritten: Object.fromEntries(sysctls) };
  });
}

/** Whether `podIface`'s bridge binding is already complete in `netns` (then there is nothing left to discover). */
export async function bridgeBindingApplied(podIface: string, netns: string): Promise<boolean> {
  checkNetns(netns);
  const links = await ipJson<Link>(netns, ['-d', 'link', 'show']);
  const nic = `${podIface.replace(/^pod/, '')}-nic`;
  return bridgeBindingInPlace(links, podIface, nic, bridgeNameFor(podIface), tapNameFor(podIface));
}

async function tryIp(netns: string, line: string): Promise<void> {
  await ipBatch(netns, [line]).catch((err: unknown) => {
    if (!(err instanceof CommandError && /File exists|Cannot find device|Nexthop has invalid gateway/.test(err.stderr)))
      throw err;
  });
}

/** Deletes the tap and the bridge, then renames the port back and gives it the pod's MAC, addresses, routes. */
async function restore(netns: string, rec: BridgeRecord, bridge: string, tap: string): Promise<string[]> {
  const links = await ipJson<Link>(netns, ['-d', 'link', 'show']);
  const by = (n: string) => links.find((l) => l.ifname === n);
  const doomed = [kind(by(tap)) === 'tun' ? tap : '', kind(by(bridge)) === 'bridge' ? bridge : ''].filter(
    (n) => n !== '',
  );
  await deleteLinks(netns, doomed);
  if (by(rec.nic) && !by(rec.pod)) {
    await ipBatch(netns, [
      `link set ${rec.nic} down`,
      `link set ${rec.nic} name ${rec.pod}`,
      `link set ${rec.pod} address ${rec.mac}`,
      `link set ${rec.pod} up`,
    ]);
    if (HAS_IPV6) await sysctlWrite(netns, new Map([[`net/ipv6/conf/${rec.pod}/disable_ipv6`, '0']]));
    for (const a of rec.addresses) await tryIp(netns, `addr add ${a} dev ${rec.pod}${a.includes(':') ? ' nodad' : ''}`);
    for (const r of rec.routes) {
      const family = r.destination.includes(':') || r.gateway.includes(':') ? '-6 ' : '';
      await tryIp(netns, `${family}route add ${r.destination}${r.gateway ? ` via ${r.gateway}` : ''} dev ${rec.pod}`);
    }
  }
  if (rec.arpIgnorePrior !== '') await sysctlWrite(netns, new Map([[ARP_IGNORE, rec.arpIgnorePrior]]));
  return doomed;
}

/** Undoes applyBridgePlan for `podIface`; a namespace without our bridge record is left as it is. */
export async function teardownBridge(podIface: string, netns: string): Promise<BridgeTeardownReport> {
  checkNetns(netns);
  checkIfname(podIface, 'pod interface');
  return withNetnsLock(netns, async () => {
    const bridge = bridgeNameFor(podIface);
    const links = await ipJson<Link>(netns, ['-d', 'link', 'show']);
    const rec = parseRecord(links.find((l) => l.ifname === bridge && kind(l) === 'bridge')?.ifalias);
    if (!rec || rec.pod !== podIface) return { linksDeleted: [], podInterfaceRestored: false };
    const deleted = await restore(netns, rec, bridge, tapNameFor(podIface));
    return { linksDeleted: deleted, podInterfaceRestored: true };
  });
}
