// The Go types of a vif-cache file, field by field in declaration order (Marshal writes them in this order):
// KubeVirt v1.9's cache.DHCPConfig and the vendored vishvananda/netlink Addr, Route and NexthopInfo
// (vendor/github.com/vishvananda/netlink/addr.go, route.go). Fields of an interface type (NewDst, Encap, Via)
// take only null: Go has no concrete type to decode anything else into.
import { GO_BOOL, GO_BYTES, GO_IFACE, GO_IP, GO_STRING, goInt, type GoType } from './go-decode.js';

/** A file larger than this is refused before parsing (a real one is about 3 KiB with three routes). */
export const VIF_CACHE_MAX_BYTES = 64 * 1024;
/** More routes than this are refused (DHCP option 121 could not carry them anyway). */
export const VIF_CACHE_MAX_ROUTES = 256;

const INT = goInt(64, true);
type Fields = ReadonlyArray<readonly [string, GoType]>;
const struct = (fields: Fields) => ({ t: 'struct' as const, fields });
const ptr = (of: GoType): GoType => ({ t: 'ptr', of });
const ints = (...names: string[]): Fields => names.map((n) => [n, INT] as const);

/** net.IPNet: the fields *net.IPNet promotes into netlink.Addr. */
const IP_NET: Fields = [
  ['IP', GO_IP],
  ['Mask', GO_BYTES],
];
export const IP_NET_FIELDS: ReadonlySet<string> = new Set(IP_NET.map(([n]) => n));

export const NETLINK_ADDR = struct([
  ...IP_NET,
  ['Label', GO_STRING],
  ...ints('Flags', 'Scope'),
  ['Peer', ptr(struct(IP_NET))],
  ['Broadcast', GO_IP],
  ...ints('PreferedLft', 'ValidLft', 'LinkIndex'),
]);

const NEXTHOP_INFO = struct([
  ...ints('LinkIndex', 'Hops'),
  ['Gw', GO_IP],
  ...ints('Flags'),
  ['NewDst', GO_IFACE],
  ['Encap', GO_IFACE],
  ['Via', GO_IFACE],
]);

export const NETLINK_ROUTE = struct([
  ...ints('LinkIndex', 'ILinkIndex'),
  ['Scope', goInt(8, false)],
  ['Dst', ptr(struct(IP_NET))],
  ['Src', GO_IP],
  ['Gw', GO_IP],
  ['MultiPath', { t: 'slice', of: ptr(NEXTHOP_INFO), maxItems: VIF_CACHE_MAX_ROUTES }],
  ...ints('Protocol', 'Priority', 'Family', 'Table', 'Type', 'Tos', 'Flags'),
  ['MPLSDst', ptr(INT)],
  ['NewDst', GO_IFACE],
  ['Encap', GO_IFACE],
  ['Via', GO_IFACE],
  ...ints('Realm', 'MTU'),
  ['MTULock', GO_BOOL],
  ...ints('Window', 'Rtt', 'RttVar', 'Ssthresh', 'Cwnd', 'AdvMSS', 'Reordering', 'Hoplimit', 'InitCwnd'),
  ...ints('Features', 'RtoMin'),
  ['RtoMinLock', GO_BOOL],
  ...ints('InitRwnd', 'QuickACK'),
  ['Congctl', GO_STRING],
  ...ints('FastOpenNoCookie'),
]);

export const DHCP_CONFIG = struct([
  ['Name', GO_STRING],
  ['IP', NETLINK_ADDR],
  ['IPv6', NETLINK_ADDR],
  ['MAC', GO_BYTES],
  ['AdvertisingIPAddr', GO_IP],
  ['AdvertisingIPv6Addr', GO_IP],
  ['Routes', ptr({ t: 'slice', of: NETLINK_ROUTE, maxItems: VIF_CACHE_MAX_ROUTES })],
  ['Mtu', goInt(16, false)],
  ['IPAMDisabled', GO_BOOL],
  ['Gateway', GO_IP],
  ['Subdomain', GO_STRING],
]);
