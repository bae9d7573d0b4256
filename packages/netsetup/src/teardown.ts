// teardown: removes what applyPlan made for one pod interface (our tables, the tap and the bridge) and puts
// the forwarding sysctls back to the values recorded at the first apply. The pod interface itself and any
// link or table without our record are left as they are.
import { checkNetns, deleteLinks, ipBatch, nftApply, sysctlWrite } from './exec.js';
import type { IpLink } from './links.js';
import { NFT_TABLE, bridgeNameFor, tapNameFor } from './names.js';
import { forwardingSysctl } from './owner.js';
import { readState } from './state.js';
import { withNetnsLock } from './netns-lock.js';

export interface TeardownReport {
  tablesDeleted: string[];
  linksDeleted: string[];
  sysctlsRestored: Record<string, string>;
}

/** Only a tun device enslaved to our bridge, or the bridge itself, is deleted. */
function ownLinks(links: readonly IpLink[], bridge: string, taps: readonly string[]): string[] {
  const out: string[] = [];
  for (const tap of taps) {
    const link = links.find((l) => l.ifname === tap);
    if (link?.linkinfo?.info_kind === 'tun' && link.master === bridge) out.push(tap);
  }
  if (links.find((l) => l.ifname === bridge)?.linkinfo?.info_kind === 'bridge') out.push(bridge);
  return out;
}

export async function teardown(podIface: string, netns: string): Promise<TeardownReport> {
  checkNetns(netns);
  // Under the same lock as applyPlan: a teardown never races a masquerade run of the same namespace.
  return withNetnsLock(netns, () => teardownLocked(podIface, netns));
}

async function teardownLocked(podIface: string, netns: string): Promise<TeardownReport> {
  const bridgeGuess = bridgeNameFor(podIface);
  const state = await readState(netns, podIface, bridgeGuess, 'skip');
  const bridge = state.own[0]?.record.bridge || bridgeGuess;
  const taps = [...new Set([...state.own.map((t) => t.record.tap).filter(Boolean), tapNameFor(podIface)])];
  const links = ownLinks(state.links, bridge, taps);
  const restore = new Map(
    state.own
      .filter((t) => t.record.prior !== '' && state.sysctls.get(forwardingSysctl(t.family)) !== t.record.prior)
      .map((t) => [forwardingSysctl(t.family), t.record.prior] as const),
  );

  if (state.own.length > 0) {
    await nftApply(netns, state.own.map((t) => `delete table ${t.family} ${NFT_TABLE}\n`).join(''));
  }
  // One batch when everything is there; deleting the bridge also drops its route_localnet switch.
  await ipBatch(
    netns,
    links.map((l) => `link del ${l}`),
  ).catch(() => deleteLinks(netns, links));
  await sysctlWrite(netns, restore);
  return {
    tablesDeleted: state.own.map((t) => `${t.family} ${NFT_TABLE}`),
    linksDeleted: links,
    sysctlsRestored: Object.fromEntries(restore),
  };
}
