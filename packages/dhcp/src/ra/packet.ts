// Neighbor Discovery codec for the two messages a router deals with (RFC 4861 §4.1, §4.2): the guest's router
// solicitation in, our router advertisement out, plus the options they carry (§4.6, RFC 8106 RDNSS). The kernel
// fills in the ICMPv6 checksum of a raw ICMPv6 socket, so the checksum field is written as zero and not checked.
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';

export const NdType = { RouterSolicitation: 133, RouterAdvertisement: 134 } as const;

export const NdOpt = { SourceLinkLayer: 1, PrefixInfo: 3, Mtu: 5, Rdnss: 25 } as const;

/** RA flag bits (RFC 4861 §4.2): Managed address configuration and Other configuration. */
export const RA_MANAGED = 0x80;
export const RA_OTHER = 0x40;
/** Prefix information flag bits (§4.6.2): on-link and autonomous. */
export const PREFIX_ON_LINK = 0x80;
export const PREFIX_AUTONOMOUS = 0x40;

export interface NdOption {
  type: number;
  /** The option's bytes after type and length. */
  value: Buffer;
}

export interface PrefixInfo {
  prefix: Buffer;
  prefixLength: number;
  flags: number;
  validLifetime: number;
  preferredLifetime: number;
}

export interface RouterAdvertisement {
  curHopLimit: number;
  flags: number;
  routerLifetime: number;
  reachableTime: number;
  retransTimer: number;
  sourceMac: Buffer | undefined;
  prefixes: PrefixInfo[];
  mtu: number | undefined;
  dnsServers: Buffer[];
  dnsLifetime: number;
}

export type NdMessage =
  | { type: 'rs'; sourceMac: Buffer | undefined; options: NdOption[] }
  | ({ type: 'ra'; options: NdOption[] } & RouterAdvertisement);

const RA_HEADER = 16;
const RS_HEADER = 8;

function encodeOptions(options: readonly NdOption[]): Buffer {
  return Buffer.concat(
    options.map((o) => {
      const total = o.value.length + 2;
      // Options are whole multiples of 8 bytes, length counted in those units (§4.6); 0 is forbidden.
      if (total % 8 !== 0 || total > 255 * 8) {
        throw new DhcpEncodeError(`ND option ${o.type} is ${total} bytes, not a multiple of 8 up to 2040`, o.type);
      }
      return Buffer.concat([Buffer.from([o.type, total / 8]), o.value]);
    }),
  );
}

export function decodeNdOptions(data: Buffer, start: number): NdOption[] {
  const options: NdOption[] = [];
  let off = start;
  while (off < data.length) {
    if (off + 2 > data.length) throw new DhcpDecodeError('truncated ND option header', off);
    const type = data[off]!;
    const len = data[off + 1]! * 8;
    // §4.6: a zero length must make the whole message be discarded (it would loop forever otherwise).
    if (len === 0) throw new DhcpDecodeError(`ND option ${type} has length 0`, off);
    if (off + len > data.length) throw new DhcpDecodeError(`ND option ${type} runs past the message`, off);
    options.push({ type, value: data.subarray(off + 2, off + len) });
    off += len;
  }
  return options;
}

function sourceMacOf(options: readonly NdOption[]): Buffer | undefined {
  const o = options.find((x) => x.type === NdOpt.SourceLinkLayer);
  return o && o.value.length >= 6 ? Buffer.from(o.value.subarray(0, 6)) : undefined;
}

function decodePrefix(o: NdOption): PrefixInfo | undefined {
  if (o.value.length !== 30) return undefined;
  return {
    prefixLength: o.value[0]!,
    flags: o.value[1]!,
    validLifetime: o.value.readUInt32BE(2),
    preferredLifetime: o.value.readUInt32BE(6),
    prefix: Buffer.from(o.value.subarray(14, 30)),
  };
}

/** Decodes an ICMPv6 message that is a router solicitation or advertisement; anything else throws. */
export function decodeNdMessage(data: Buffer): NdMessage {
  if (data.length < 4) throw new DhcpDecodeError(`ICMPv6 message of ${data.length} bytes`, 0);
  const type = data[0]!;
  // §6.1.1/§6.1.2: code must be 0, anything else is discarded.
  if (data[1] !== 0) throw new DhcpDecodeError(`ICMPv6 code ${data[1]} is not 0`, 1);
  if (type === NdType.RouterSolicitation) {
    if (data.length < RS_HEADER) throw new DhcpDecodeError('router solicitation shorter than 8 bytes', 0);
    const options = decodeNdOptions(data, RS_HEADER);
    return { type: 'rs', sourceMac: sourceMacOf(options), options };
  }
  if (type !== NdType.RouterAdvertisement) throw new DhcpDecodeError(`ICMPv6 type ${type} is not RS or RA`, 0);
  if (data.length < RA_HEADER) throw new DhcpDecodeError('router advertisement shorter than 16 bytes', 0);
  const options = decodeNdOptions(data, RA_HEADER);
  const mtu = options.find((o) => o.type === NdOpt.Mtu && o.value.length === 6);
  const rdnss = options.find((o) => o.type === NdOpt.Rdnss && o.value.length >= 22);
  const dnsServers: Buffer[] = [];
  for (let off = 6; rdnss && off + 16 <= rdnss.value.length; off += 16) {
    dnsServers.push(Buffer.from(rdnss.value.subarray(off, off + 16)));
  }
  return {
    type: 'ra',
    options,
    curHopLimit: data[4]!,
    flags: data[5]!,
    routerLifetime: data.readUInt16BE(6),
    reachableTime: data.readUInt32BE(8),
    retransTimer: data.readUInt32BE(12),
    sourceMac: sourceMacOf(options),
    prefixes: options
      .filter((o) => o.type === NdOpt.PrefixInfo)
      .map(decodePrefix)
      .filter((p) => p !== undefined),
    mtu: mtu?.value.readUInt32BE(2),
    dnsServers,
    dnsLifetime: rdnss ? rdnss.value.readUInt32BE(2) : 0,
  };
}

function prefixOption(p: PrefixInfo): NdOption {
  if (p.prefix.length !== 16 || p.prefixLength > 128) {
    throw new DhcpEncodeError(`prefix /${p.prefixLength} of ${p.prefix.length} bytes`, NdOpt.PrefixInfo);
  }
  const v = Buffer.alloc(30);
  v[0] = p.prefixLength;
  v[1] = p.flags;
  v.writeUInt32BE(p.validLifetime >>> 0, 2);
  v.writeUInt32BE(p.preferredLifetime >>> 0, 6);
  p.prefix.copy(v, 14);
  return { type: NdOpt.PrefixInfo, value: v };
}

/** The whole ICMPv6 router advertisement, checksum left zero for the kernel. */
export function encodeRouterAdvertisement(ra: RouterAdvertisement): Buffer {
  if (ra.routerLifetime > 0xffff) throw new DhcpEncodeError(`router lifetime ${ra.routerLifetime}`, 0);
  const head = Buffer.alloc(RA_HEADER);
  head[0] = NdType.RouterAdvertisement;
  head[4] = ra.curHopLimit;
  head[5] = ra.flags;
  head.writeUInt16BE(ra.routerLifetime, 6);
  head.writeUInt32BE(ra.reachableTime >>> 0, 8);
  head.writeUInt32BE(ra.retransTimer >>> 0, 12);
  const options: NdOption[] = [];
  if (ra.sourceMac) {
    if (ra.sourceMac.length !== 6) throw new DhcpEncodeError('source link-layer address is not 6 bytes', 1);
    options.push({ type: NdOpt.SourceLinkLayer, value: ra.sourceMac });
  }
  if (ra.mtu !== undefined) {
    const v = Buffer.alloc(6);
    v.writeUInt32BE(ra.mtu >>> 0, 2);
    options.push({ type: NdOpt.Mtu, value: v });
  }
  options.push(...ra.prefixes.map(prefixOption));
  if (ra.dnsServers.length > 0) {
    const head6 = Buffer.alloc(6);
    head6.writeUInt32BE(ra.dnsLifetime >>> 0, 2);
    if (ra.dnsServers.some((a) => a.length !== 16)) throw new DhcpEncodeError('RDNSS address is not 16 bytes', 25);
    options.push({ type: NdOpt.Rdnss, value: Buffer.concat([head6, ...ra.dnsServers]) });
  }
  return Buffer.concat([head, encodeOptions(options)]);
}

/** A router solicitation as a host sends it (used by tests and the fuzzer). */
export function encodeRouterSolicitation(sourceMac?: Buffer): Buffer {
  const head = Buffer.alloc(RS_HEADER);
  head[0] = NdType.RouterSolicitation;
  const opts = sourceMac ? encodeOptions([{ type: NdOpt.SourceLinkLayer, value: sourceMac }]) : Buffer.alloc(0);
  return Buffer.concat([head, opts]);
}
