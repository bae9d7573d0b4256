// Makes a reply fit the size the client can take. RFC 2131 §2 and RFC 2132 §9.10: a client accepts 576-byte
// datagrams, larger ones only up to what it says in option 57. busybox udhcpc (CirrOS, Alpine) says 576 and drops
// anything over ~656, so a long Kubernetes search list alone can cost the guest its lease.
//
// Two steps, as dnsmasq does: first spill options into the `file` and `sname` fields (option 52, RFC 2131 §4.1),
// then, if that is not enough, drop options from the least needed up. The order of need, least needed first:
//   1. whatever the client did not ask for in option 55 (when it sent a list),
//   2. private options 254..224, then 67 bootfile, 66 TFTP server, 42 NTP servers,
//   3. 119 search list: first shortened to its leading domains (the pod's own namespace comes first), then dropped,
//   4. 15 domain name, 12 host name, 121 classless routes (option 3 still gives the default route),
//   5. 26 MTU last: a wrong MTU on an overlay network breaks TCP in ways that are hard to see.
// Never dropped: 53, 54, 51 (the lease itself) and 1, 3, 6 (subnet, router, DNS): without them the guest has an
// address but no working network.
import { encodeDomainSearch } from './domain-search.js';
import { Opt, type Options, optionAreaLength } from './options.js';
import { FILE_OPTION_ROOM, SNAME_OPTION_ROOM } from './packet.js';

/** RFC 2131 §2: every client accepts a 576-byte datagram (IP and UDP headers included). */
export const MIN_MAX_MESSAGE = 576;
/** IP (20) + UDP (8) + BOOTP header (236) + magic cookie (4). */
const FIXED_BYTES = 268;
const OVERLOAD_OPTION_BYTES = 3;

export const NEVER_DROPPED: ReadonlySet<number> = new Set([
  Opt.MessageType,
  Opt.ServerId,
  Opt.LeaseTime,
  Opt.SubnetMask,
  Opt.Router,
  Opt.DnsServers,
]);

/** Least needed first; codes not listed (private 224..254 and any other) go before all of these. */
const NEED = [
  Opt.BootfileName,
  Opt.TftpServerName,
  Opt.NtpServers,
  Opt.DomainSearch,
  Opt.DomainName,
  Opt.HostName,
  Opt.ClasslessRoutes,
  Opt.InterfaceMtu,
];

export interface FitInput {
  /** Options every reply of this kind carries (53, 54, 51, 56), written first in the options field. */
  fixed: Options;
  /** The configured options, in code order. */
  configured: Options;
  /** The search list option 119 was encoded from, so it can be shortened instead of dropped whole. */
  searchDomains: readonly string[];
  /** Option 55 of the request; undefined when the client sent none. */
  requested: ReadonlySet<number> | undefined;
  /** Largest datagram (IP and UDP headers included) the client takes. */
  limit: number;
}

export interface FittedOptions {
  /** The options field: the fixed options first, then the configured ones that stay there. */
  options: Options;
  /** Options spilled into `file` / `sname` (empty maps when the options field was enough). */
  fileOptions: Options;
  snameOptions: Options;
  /** Option codes left out, in the order they were dropped. */
  dropped: number[];
  /** Domains of the search list still sent when it had to be shortened. */
  searchDomainsKept?: number;
}

/** The datagram limit for a request: its option 57 if valid, capped at the link MTU, else 576. */
export function replyLimit(maxMessageSize: Buffer | undefined, linkMtu: number): number {
  if (!maxMessageSize || maxMessageSize.length !== 2) return MIN_MAX_MESSAGE;
  // The cap keeps a reply unfragmented: clients reading a raw socket (udhcpc) never reassemble fragments.
  return Math.max(MIN_MAX_MESSAGE, Math.min(maxMessageSize.readUInt16BE(0), linkMtu));
}

/** Wire size of each instance of a value (RFC 3396 splits values at 255 bytes). */
function instanceSizes(value: Buffer): number[] {
  const sizes: number[] = [];
  for (let from = 0; from < value.length || sizes.length === 0; from += 255) {
    sizes.push(2 + Math.min(255, value.length - from));
  }
  return sizes;
}

/**
 * Places `configured` into the three areas, or says it cannot. 1, 3 and 6 stay in the options field with the fixed
 * options, where even a client that ignores option 52 finds them. The rest goes largest piece first into the first
 * area with room (options, file, sname), so the pieces of one split value keep the order RFC 3396 concatenates them
 * in: only the options field can hold a full 255-byte piece, and the smaller last piece is placed after those.
 */
function place(fixed: Options, configured: Options, limit: number): FittedOptions | undefined {
  const mainRoom = limit - FIXED_BYTES - 1 - optionAreaLength(fixed);
  if (optionAreaLength(configured) <= mainRoom) {
    return {
      options: new Map([...fixed, ...configured]),
      fileOptions: new Map(),
      snameOptions: new Map(),
      dropped: [],
    };
  }
  const essentials = new Map([...configured].filter(([code]) => NEVER_DROPPED.has(code)));
  const room = [mainRoom - OVERLOAD_OPTION_BYTES - optionAreaLength(essentials), FILE_OPTION_ROOM, SNAME_OPTION_ROOM];
  if ((room[0] ?? 0) < 0) return undefined;
  const pieces = [...configured]
    .filter(([code]) => !essentials.has(code))
    .flatMap(([code, value]) => instanceSizes(value).map((size, index) => ({ code, index, size })));
  pieces.sort((a, b) => b.size - a.size || a.code - b.code || a.index - b.index);
  // For each code, the area each of its pieces went to, by piece index.
  const areaOf = new Map<number, number[]>();
  for (const piece of pieces) {
    const area = room.findIndex((r) => r >= piece.size);
    if (area < 0) return undefined;
    room[area] = (room[area] ?? 0) - piece.size;
    const list = areaOf.get(piece.code) ?? [];
    list[piece.index] = area;
    areaOf.set(piece.code, list);
  }
  const areas: [Options, Options, Options] = [new Map(fixed), new Map(), new Map()];
  for (const [code, value] of configured) {
    if (essentials.has(code)) areas[0].set(code, value);
    (areaOf.get(code) ?? []).forEach((area, index) => {
      const target = areas[area] ?? areas[0];
      const piece = value.subarray(index * 255, index * 255 + 255);
      const before = target.get(code);
      target.set(code, before ? Buffer.concat([before, piece]) : piece);
    });
  }
  return { options: areas[0], fileOptions: areas[1], snameOptions: areas[2], dropped: [] };
}

/** Codes in the order they are dropped. */
export function dropOrder(codes: Iterable<number>, requested: ReadonlySet<number> | undefined): number[] {
  const rank = (code: number): number => NEED.indexOf(code as (typeof NEED)[number]);
  return [...codes]
    .filter((code) => !NEVER_DROPPED.has(code))
    .sort((a, b) => {
      const unasked = Number(requested?.has(a) ?? true) - Number(requested?.has(b) ?? true);
      // Unlisted codes rank -1 and go first, highest code first (private options from 254 down).
      return unasked || rank(a) - rank(b) || b - a;
    });
}

/** The longest leading part of the search list that fits, or undefined when not even one domain does. */
function shortenSearch(input: FitInput, kept: Options): { fitted: FittedOptions; count: number } | undefined {
  let best: { fitted: FittedOptions; count: number } | undefined;
  let low = 1;
  let high = input.searchDomains.length - 1;
  // Fewer domains never encode longer, so the largest count that fits is found by bisection.
  while (low <= high) {
    const count = (low + high) >> 1;
    // Option 119 is still in `kept` here, so set() keeps its place in code order.
    const trial = new Map(kept).set(Opt.DomainSearch, encodeDomainSearch(input.searchDomains.slice(0, count)));
    const fitted = place(input.fixed, trial, input.limit);
    if (fitted) {
      best = { fitted, count };
      low = count + 1;
    } else {
      high = count - 1;
    }
  }
  return best;
}

function computeFit(input: FitInput): FittedOptions {
  const kept = new Map(input.configured);
  const dropped: number[] = [];
  for (const code of [...dropOrder(kept.keys(), input.requested), undefined]) {
    const fitted = place(input.fixed, kept, input.limit);
    if (fitted) return { ...fitted, dropped };
    if (code === undefined) break;
    if (code === Opt.DomainSearch && input.searchDomains.length > 1) {
      const shorter = shortenSearch(input, kept);
      if (shorter) return { ...shorter.fitted, dropped, searchDomainsKept: shorter.count };
    }
    kept.delete(code);
    dropped.push(code);
  }
  // Only 1, 3 and 6 are left and still do not fit (dozens of DNS servers): send them anyway, the client may cope.
  return { options: new Map([...input.fixed, ...kept]), fileOptions: new Map(), snameOptions: new Map(), dropped };
}

/**
 * Layouts already worked out, per configured option set: a guest repeats the same request (DISCOVER, REQUEST,
 * renewals, retries) and shortening a long search list re-encodes it several times. Only the configured part is
 * kept; the fixed options (same sizes for a given key) are put back in front on every hit.
 */
const layouts = new WeakMap<Options, Map<string, FittedOptions>>();
/** Distinct (limit, option 55) pairs remembered per configuration; a client sending ever new ones only refills it. */
const MAX_LAYOUTS = 64;

export function fitReply(input: FitInput): FittedOptions {
  const requested = input.requested ? [...input.requested].join(',') : '-';
  const key = `${optionAreaLength(input.fixed)}/${input.limit}/${requested}`;
  let cache = layouts.get(input.configured);
  if (!cache) layouts.set(input.configured, (cache = new Map()));
  let layout = cache.get(key);
  if (!layout) {
    const fitted = computeFit(input);
    layout = { ...fitted, options: new Map([...fitted.options].filter(([code]) => !input.fixed.has(code))) };
    if (cache.size >= MAX_LAYOUTS) cache.clear();
    cache.set(key, layout);
  }
  return {
    ...layout,
    options: new Map([...input.fixed, ...layout.options]),
    fileOptions: new Map(layout.fileOptions),
    snameOptions: new Map(layout.snameOptions),
    dropped: [...layout.dropped],
  };
}
