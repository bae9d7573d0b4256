// The DHCP cache file of a bridge-bound NIC, `vif-cache-<pod iface>.json` in the pod's private directory:
// virt-handler's network phase 1 writes it, the launcher's phase 2 reads it and serves DHCP from it. Its bytes
// are Go's json.MarshalIndent(v, "", "  ") of KubeVirt's cache.DHCPConfig (pkg/network/cache/dhcpconfig.go and
// cache.go, KubeVirt v1.9), whose addresses and routes are vishvananda/netlink's Addr and Route types with every
// field they have. encodeVifCache writes those bytes exactly; decodeVifCache reads what Go's Unmarshal reads,
// and refuses, naming the field, what Go refuses and what the launcher could not serve. The vectors in
// testdata/kubevirt-vif-cache were written by KubeVirt's own code (see its README.md).
import { decodeGo, GoDecodeError, type GoDecoded, type GoStruct, type GoType } from './go-decode.js';
import { GoJsonSyntaxError, goMarshalIndent, parseGoJson, type GoJsonValue } from './go-json.js';
import { cidrMask, encodeGoBase64, goIpString, isIpv4Mapped, maskPrefixLength, parseGoIp } from './go-net.js';
import { DHCP_CONFIG, IP_NET_FIELDS, NETLINK_ADDR, NETLINK_ROUTE, VIF_CACHE_MAX_BYTES } from './vif-cache-schema.js';

export { VIF_CACHE_MAX_BYTES, VIF_CACHE_MAX_ROUTES } from './vif-cache-schema.js';

/** An address with its prefix length (netlink.Addr's IP and Mask). */
export interface VifCacheAddress {
  address: string;
  prefixLength: number;
}

/** One route to hand the guest (netlink.Route's Dst and Gw; its other fields are always zero here). */
export interface VifCacheRoute {
  /** CIDR text (`10.99.0.0/16`); undefined is the default route (Dst null). */
  destination?: string;
  /** Next hop; undefined for an on-link route (Gw empty). */
  gateway?: string;
}

/** cache.DHCPConfig in the terms the launcher uses; undefined stands for Go's nil / zero address. */
export interface VifCacheDhcpConfig {
  /** The pod interface the launcher serves on; phase 1 leaves it empty, phase 2 fills it. */
  name: string;
  ipv4?: VifCacheAddress;
  ipv6?: VifCacheAddress;
  /** The guest's MAC, lower-case `aa:bb:cc:dd:ee:ff`. */
  mac?: string;
  advertisingIpv4?: string;
  advertisingIpv6?: string;
  /** undefined: no routes (Go's nil pointer, `null`); [] is written as `[]`. */
  routes?: VifCacheRoute[];
  mtu: number;
  ipamDisabled: boolean;
  gateway?: string;
  subdomain: string;
}

/** A vif-cache file (or a config to write) that cannot be used: `path` is the file, `field` its Go field path. */
export class VifCacheError extends Error {
  constructor(
    readonly path: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${path}: ${field ? `field ${field}: ` : ''}${reason}`);
    this.name = 'VifCacheError';
  }
}

/** The path VifCacheError names when encodeVifCache refuses a config (there is no file yet). */
export const VIF_CACHE_ENCODE_PATH = '(vif-cache to encode)';

// ---------------------------------------------------------------------------------------------------- encoding

const str = (value: string): GoJsonValue => ({ kind: 'string', value });
const num = (value: number): GoJsonValue => ({ kind: 'number', text: String(value) });
const NULL: GoJsonValue = { kind: 'null' };

/** Go's zero value of each field, as Marshal writes it (a nil IP is "", a nil slice or pointer null). */
function zeroJson(type: GoType): GoJsonValue {
  if (type.t === 'string' || type.t === 'ip') return str('');
  if (type.t === 'bool') return { kind: 'bool', value: false };
  if (type.t === 'int') return num(0);
  return NULL;
}

function structJson(
  fields: ReadonlyArray<readonly [string, GoType]>,
  set: Record<string, GoJsonValue>,
  omit: ReadonlySet<string> = new Set(),
): GoJsonValue {
  return {
    kind: 'object',
    members: fields.filter(([n]) => !omit.has(n)).map(([n, t]) => [n, set[n] ?? zeroJson(t)] as [string, GoJsonValue]),
  };
}

function ipBytes(text: string, field: string, family?: 4 | 6): Uint8Array {
  const ip = parseGoIp(text);
  if (!ip) throw new VifCacheError(VIF_CACHE_ENCODE_PATH, field, `invalid IP address: ${JSON.stringify(text)}`);
  if (family !== undefined && isIpv4Mapped(ip) !== (family === 4)) {
    throw new VifCacheError(VIF_CACHE_ENCODE_PATH, field, `${text} is not an IPv${family} address`);
  }
  return ip;
}

function ipNetJson(address: string, prefix: number, field: string, family?: 4 | 6): Record<string, GoJsonValue> {
  const ip = ipBytes(address, `${field}.IP`, family);
  const bits = isIpv4Mapped(ip) ? 32 : 128;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
    throw new VifCacheError(VIF_CACHE_ENCODE_PATH, `${field}.Mask`, `prefix length ${prefix} is not 0-${bits}`);
  }
  return { IP: str(goIpString(ip)), Mask: str(encodeGoBase64(cidrMask(prefix, bits === 32 ? 4 : 16))) };
}

function addrJson(a: VifCacheAddress | undefined, field: string, family: 4 | 6): GoJsonValue {
  // A zero netlink.Addr has a nil *net.IPNet: Marshal leaves its promoted IP and Mask out.
  if (!a) return structJson(NETLINK_ADDR.fields, {}, IP_NET_FIELDS);
  return structJson(NETLINK_ADDR.fields, ipNetJson(a.address, a.prefixLength, field, family));
}

function optionalIp(text: string | undefined, field: string, family?: 4 | 6): GoJsonValue {
  return text === undefined || text === '' ? str('') : str(goIpString(ipBytes(text, field, family)));
}

function routeJson(r: VifCacheRoute, i: number): GoJsonValue {
  const field = `Routes[${i}]`;
  let dst: GoJsonValue = NULL;
  if (r.destination !== undefined) {
    const [address = '', prefix, extra] = r.destination.split('/');
    if (prefix === undefined || extra !== undefined || !/^\d{1,3}$/.test(prefix)) {
      throw new VifCacheError(VIF_CACHE_ENCODE_PATH, `${field}.Dst`, `not a CIDR: ${JSON.stringify(r.destination)}`);
    }
    dst = { kind: 'object', members: Object.entries(ipNetJson(address, Number(prefix), `${field}.Dst`)) };
  }
  return structJson(NETLINK_ROUTE.fields, { Dst: dst, Gw: optionalIp(r.gateway, `${field}.Gw`) });
}

function macJson(mac: string | undefined): GoJsonValue {
  if (mac === undefined) return NULL;
  if (!/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(mac)) {
    throw new VifCacheError(VIF_CACHE_ENCODE_PATH, 'MAC', `not a MAC address: ${JSON.stringify(mac)}`);
  }
  return str(encodeGoBase64(Uint8Array.from(mac.split(':').map((h) => parseInt(h, 16)))));
}

/** The file's bytes as KubeVirt's cache package writes them (no trailing newline, as Go's MarshalIndent). */
export function encodeVifCache(config: VifCacheDhcpConfig): string {
  if (!Number.isInteger(config.mtu) || config.mtu < 0 || config.mtu > 0xffff) {
    throw new VifCacheError(VIF_CACHE_ENCODE_PATH, 'Mtu', `${config.mtu} is not 0-65535 (Go uint16)`);
  }
  const routes = config.routes === undefined ? NULL : { kind: 'array' as const, items: config.routes.map(routeJson) };
  const value = structJson(DHCP_CONFIG.fields, {
    Name: str(config.name),
    IP: addrJson(config.ipv4, 'IP', 4),
    IPv6: addrJson(config.ipv6, 'IPv6', 6),
    MAC: macJson(config.mac),
    AdvertisingIPAddr: optionalIp(config.advertisingIpv4, 'AdvertisingIPAddr'),
    AdvertisingIPv6Addr: optionalIp(config.advertisingIpv6, 'AdvertisingIPv6Addr'),
    Routes: routes,
    Mtu: num(config.mtu),
    IPAMDisabled: { kind: 'bool', value: config.ipamDisabled },
    Gateway: optionalIp(config.gateway, 'Gateway'),
    Subdomain: str(config.subdomain),
  });
  return goMarshalIndent(value);
}

// ---------------------------------------------------------------------------------------------------- decoding

type Fail = (field: string, reason: string) => never;

function ipText(v: GoDecoded | undefined): string | undefined {
  return v instanceof Uint8Array ? goIpString(v) : undefined;
}

/** An IP and its mask, consistent: both or neither, the mask contiguous and of the address's family. */
function ipNet(s: GoStruct, field: string, fail: Fail): { ip: Uint8Array; prefix: number } | undefined {
  const ip = s.get('IP');
  const mask = s.get('Mask');
  const hasMask = mask instanceof Uint8Array;
  if (!(ip instanceof Uint8Array)) {
    if (hasMask) fail(`${field}.IP`, 'a Mask without an IP');
    return undefined;
  }
  if (!hasMask) fail(`${field}.Mask`, `missing for IP ${goIpString(ip)}`);
  const v4 = isIpv4Mapped(ip);
  // An IPv4 address may carry its mask in 16 bytes (the first 96 bits set), as Go's IPNet allows.
  const v4Long = v4 && mask.length === 16 && mask.slice(0, 12).every((b) => b === 0xff);
  if (mask.length !== (v4 ? 4 : 16) && !v4Long) {
    fail(`${field}.Mask`, `${mask.length} bytes do not fit IPv${v4 ? 4 : 6} address ${goIpString(ip)}`);
  }
  const prefix = maskPrefixLength(v4Long ? mask.slice(12) : mask);
  if (prefix === undefined) fail(`${field}.Mask`, `not a prefix mask (${encodeGoBase64(mask)})`);
  return { ip, prefix };
}

function address(s: GoDecoded | undefined, field: string, family: 4 | 6, fail: Fail): VifCacheAddress | undefined {
  if (!(s instanceof Map)) return undefined;
  const net = ipNet(s, field, fail);
  if (!net) return undefined;
  if (isIpv4Mapped(net.ip) !== (family === 4))
    fail(`${field}.IP`, `${goIpString(net.ip)} is not an IPv${family} address`);
  return { address: goIpString(net.ip), prefixLength: net.prefix };
}

function route(r: GoDecoded, i: number, fail: Fail): VifCacheRoute {
  const s = r instanceof Map ? r : new Map<string, GoDecoded>();
  const dst = s.get('Dst');
  const out: VifCacheRoute = {};
  if (dst instanceof Map) {
    const net = ipNet(dst, `Routes[${i}].Dst`, fail);
    if (!net) fail(`Routes[${i}].Dst`, 'has no IP');
    out.destination = `${goIpString(net.ip)}/${net.prefix}`;
  }
  const gateway = ipText(s.get('Gw'));
  if (gateway !== undefined) out.gateway = gateway;
  return out;
}

function mac(v: GoDecoded | undefined, fail: Fail): string | undefined {
  if (!(v instanceof Uint8Array)) return undefined;
  if (v.length !== 6) fail('MAC', `${v.length} bytes, not the 6 of an Ethernet address`);
  return [...v].map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function toConfig(s: GoStruct, fail: Fail): VifCacheDhcpConfig {
  const config: VifCacheDhcpConfig = {
    name: (s.get('Name') as string | undefined) ?? '',
    mtu: Number((s.get('Mtu') as bigint | undefined) ?? 0n),
    ipamDisabled: (s.get('IPAMDisabled') as boolean | undefined) ?? false,
    subdomain: (s.get('Subdomain') as string | undefined) ?? '',
  };
  const optional: Partial<VifCacheDhcpConfig> = {
    ipv4: address(s.get('IP'), 'IP', 4, fail),
    ipv6: address(s.get('IPv6'), 'IPv6', 6, fail),
    mac: mac(s.get('MAC'), fail),
    advertisingIpv4: ipText(s.get('AdvertisingIPAddr')),
    advertisingIpv6: ipText(s.get('AdvertisingIPv6Addr')),
    gateway: ipText(s.get('Gateway')),
  };
  const routes = s.get('Routes');
  if (Array.isArray(routes)) optional.routes = routes.map((r, i) => route(r, i, fail));
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) Object.assign(config, { [k]: v });
  return config;
}

/**
 * Reads a vif-cache file's text (`path` names it in errors). Accepts what Go's json.Unmarshal accepts into
 * cache.DHCPConfig (null or missing members, keys in any letter case, base64 masks and MACs, IPv4 addresses in
 * their ::ffff: form or with a 16-byte mask), except what no DHCP server could hand out: a MAC that is not 6
 * bytes, a mask that is not a prefix or not of its address's family, an IP without its mask or the reverse.
 */
export function decodeVifCache(text: string, path: string): VifCacheDhcpConfig {
  const fail: Fail = (field, reason) => {
    throw new VifCacheError(path, field, reason);
  };
  const size = Buffer.byteLength(text, 'utf8');
  if (size > VIF_CACHE_MAX_BYTES) fail('', `${size} bytes, more than the ${VIF_CACHE_MAX_BYTES} a vif-cache may have`);
  let json: GoJsonValue;
  try {
    json = parseGoJson(text);
  } catch (err) {
    if (err instanceof GoJsonSyntaxError) fail('', `not JSON: ${err.message}`);
    throw err;
  }
  let decoded: GoDecoded | undefined;
  try {
    decoded = decodeGo('', DHCP_CONFIG, json);
  } catch (err) {
    if (err instanceof GoDecodeError) fail(err.field, err.reason);
    throw err;
  }
  // A top-level null leaves Go's DHCPConfig as it was: all zero.
  return toConfig(decoded instanceof Map ? decoded : new Map(), fail);
}
