// What a pod namespace holds right now, as far as a plan is concerned: its links, the nftables tables with
// their owner records, and the sysctls the plan sets.
import { existsSync } from 'node:fs';
import { InterfaceNotFoundError, TableConflictError } from './errors.js';
import { ipJson, nftListRuleset, sysctlRead } from './exec.js';
import type { IpLink } from './links.js';
import { NFT_TABLE } from './names.js';
import { forwardingSysctl, listTables, parseOwnerComment } from './owner.js';
import type { ListedTable, OwnerRecord } from './owner.js';

export interface OwnTable {
  family: string;
  listed: ListedTable;
  record: OwnerRecord;
}

export interface NsState {
  links: IpLink[];
  /** Our tables (name NFT_TABLE, families ip / ip6) that carry an owner record of this pod interface. */
  own: OwnTable[];
  sysctls: Map<string, string>;
}

/** IPv6 may be switched off in the kernel; then its sysctls do not exist in any namespace. */
const HAS_IPV6 = existsSync('/proc/sys/net/ipv6');

/**
 * `foreign: 'reject'` (apply) fails on a table of our name that is not ours; `'skip'` (teardown) leaves it out.
 */
export async function readState(
  netns: string,
  podIface: string,
  bridge: string,
  foreign: 'reject' | 'skip' = 'reject',
): Promise<NsState> {
  const globals = [forwardingSysctl('ip'), ...(HAS_IPV6 ? [forwardingSysctl('ip6')] : [])];
  const [links, ruleset, sysctls] = await Promise.all([
    ipJson<IpLink>(netns, ['-d', 'addr', 'show']),
    nftListRuleset(netns),
    sysctlRead(netns, globals),
  ]);
  if (!links.some((l) => l.ifname === podIface)) throw new InterfaceNotFoundError(netns, podIface);
  if (links.some((l) => l.ifname === bridge)) {
    const key = `net/ipv4/conf/${bridge}/route_localnet`;
    sysctls.set(key, (await sysctlRead(netns, [key])).get(key) ?? '');
  }
  const own: OwnTable[] = [];
  for (const listed of listTables(ruleset)) {
    if (listed.name !== NFT_TABLE || (listed.family !== 'ip' && listed.family !== 'ip6')) continue;
    const record = parseOwnerComment(listed.comment);
    // A table of that name without our record (iptables-nft's "ip nat", say) or made for another pod interface
    // is not ours to replace.
    if (!record || record.pod !== podIface) {
      if (foreign === 'skip') continue;
      throw new TableConflictError(listed.family, listed.name);
    }
    own.push({ family: listed.family, listed, record });
  }
  // Listing order follows creation order; a stable one keeps reports comparable.
  own.sort((a, b) => a.family.localeCompare(b.family));
  return { links, own, sysctls };
}
