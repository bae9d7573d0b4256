// Ownership of our nftables tables. The table comment is the record: who made it (pod iface, bridge, tap),
// the forwarding sysctl value found before (restored at teardown), and a fingerprint of the rules (so an
// unchanged re-apply is skipped and the ruleset, handles included, stays exactly as it was).
import { createHash } from 'node:crypto';
import type { NftFamily } from './nft-rules.js';

const MARK = 'virt-netsetup/v1';

export interface OwnerRecord {
  pod: string;
  bridge: string;
  tap: string;
  /** Value of the family's forwarding sysctl before the first apply. */
  prior: string;
  fingerprint: string;
}

export interface ListedTable {
  family: string;
  name: string;
  comment: string | undefined;
  /** The table block as `nft list ruleset` printed it; valid `nft -f` input (used to restore it on rollback). */
  text: string;
}

export function fingerprint(tableText: string): string {
  return createHash('sha256').update(tableText).digest('hex').slice(0, 16);
}

/** Fits nft's 128-byte comment limit: interface names are at most 15 characters. */
export function ownerComment(r: OwnerRecord): string {
  return `${MARK} pod=${r.pod} bridge=${r.bridge} tap=${r.tap} prior=${r.prior} fp=${r.fingerprint}`;
}

export function parseOwnerComment(comment: string | undefined): OwnerRecord | undefined {
  if (!comment?.startsWith(`${MARK} `)) return undefined;
  const fields = new Map(
    comment
      .slice(MARK.length + 1)
      .split(' ')
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as const),
  );
  const get = (k: string): string => fields.get(k) ?? '';
  return { pod: get('pod'), bridge: get('bridge'), tap: get('tap'), prior: get('prior'), fingerprint: get('fp') };
}

/** Tables of a `nft list ruleset` text with their comment (nft 1.0.6's JSON leaves table comments out). */
export function listTables(ruleset: string): ListedTable[] {
  const tables: ListedTable[] = [];
  const re = /^table (\S+) (\S+) \{\n([\s\S]*?)^\}$/gm;
  for (const m of ruleset.matchAll(re)) {
    const comment = /^\tcomment "([^"]*)"$/m.exec(m[3] ?? '');
    tables.push({ family: m[1]!, name: m[2]!, comment: comment?.[1], text: `${m[0]}\n` });
  }
  return tables;
}

/** The forwarding switch a family's NAT needs; its prior value rides in that family's table record. */
export function forwardingSysctl(family: NftFamily | string): string {
  return family === 'ip6' ? 'net/ipv6/conf/all/forwarding' : 'net/ipv4/ip_forward';
}

/**
 * Chains and rule count per chain of a table block, in our text or as nft lists it. The comment's fingerprint
 * says what we wrote; this says whether it is all still there (a rule deleted or added by hand shows here).
 */
export function tableShape(text: string): string {
  const shape: string[] = [];
  for (const line of text.split('\n')) {
    const chain = /^\tchain (\S+) \{$/.exec(line);
    if (chain) shape.push(`${chain[1]}:0`);
    else if (line.startsWith('\t\t') && !/^\t\ttype \S+ hook /.test(line) && shape.length > 0) {
      const [name, count] = shape.pop()!.split(':');
      shape.push(`${name}:${Number(count) + 1}`);
    }
  }
  return shape.sort().join(' ');
}
