// The DHCPv6 single-guest responder (RFC 8415 §18.3), pure: message in, reply out. One guest, one address:
// every IA_NA the client asks for gets the configured address.
import { DEFAULT_LEASE_SECONDS, type DhcpV6Config } from '@virt-launcher/contracts';
import { DhcpConfigError } from '../errors.js';
import { parseCidr6, parseIPv6, parseMac } from '../addr.js';
import {
  type Dhcpv6Message,
  type V6Option,
  V6Opt,
  V6Status,
  V6Type,
  decodeIaNa,
  encodeIaAddr,
  encodeIaNa,
  encodeStatus,
  findV6,
} from './message.js';

export interface PreparedV6 {
  interfaceName: string;
  address: Buffer;
  prefix: number;
  serverDuid: Buffer;
  dns: Buffer | undefined;
  lifetime: number;
}

export function prepareV6(cfg: DhcpV6Config): PreparedV6 {
  if (cfg.interfaceName === '') throw new DhcpConfigError('interface name is required', 'v6.interfaceName');
  const cidr = parseCidr6(cfg.clientIpCidr);
  if (!cidr) throw new DhcpConfigError(`"${cfg.clientIpCidr}" is not an IPv6 CIDR`, 'v6.clientIpCidr');
  const mac = parseMac(cfg.serverMac === '' ? '02:00:00:00:00:00' : cfg.serverMac);
  if (!mac) throw new DhcpConfigError(`"${cfg.serverMac}" is not a MAC address`, 'v6.serverMac');
  // DUID-LL (RFC 8415 §11.4): type 3, hardware type 1 (Ethernet), link-layer address.
  const serverDuid = Buffer.concat([Buffer.from([0, 3, 0, 1]), mac]);
  const dnsBytes = cfg.dnsServers.map((s) => {
    const a = parseIPv6(s);
    if (!a) throw new DhcpConfigError(`"${s}" is not an IPv6 address`, 'v6.dnsServers');
    return a;
  });
  return {
    interfaceName: cfg.interfaceName,
    address: cidr.address,
    prefix: cidr.prefix,
    serverDuid,
    dns: dnsBytes.length > 0 ? Buffer.concat(dnsBytes) : undefined,
    lifetime: cfg.leaseSeconds === 0 ? DEFAULT_LEASE_SECONDS : cfg.leaseSeconds,
  };
}

export type V6Decision = { kind: 'ignore'; reason: string } | { kind: 'reply'; message: Dhcpv6Message; note: string };

function sameNetwork(a: Buffer, b: Buffer, prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((a[byte] ?? 0) & mask) !== ((b[byte] ?? 0) & mask)) return false;
  }
  return true;
}

function iaReplies(p: PreparedV6, req: Dhcpv6Message): V6Option[] {
  const t1 = Math.floor(p.lifetime / 2);
  const t2 = Math.floor((p.lifetime * 4) / 5);
  return req.options
    .filter((o) => o.code === V6Opt.IaNa)
    .map((o) => {
      const ia = decodeIaNa(o.value);
      const addr = { code: V6Opt.IaAddr, value: encodeIaAddr(p.address, p.lifetime, p.lifetime) };
      return { code: V6Opt.IaNa, value: encodeIaNa({ iaid: ia.iaid, t1, t2, options: [addr] }) };
    });
}

/** CONFIRM (§18.3.3): are the client's addresses still on this link? */
function confirmStatus(p: PreparedV6, req: Dhcpv6Message): V6Option {
  for (const o of req.options.filter((x) => x.code === V6Opt.IaNa)) {
    for (const a of decodeIaNa(o.value).options.filter((x) => x.code === V6Opt.IaAddr)) {
      if (a.value.length < 16 || !sameNetwork(a.value.subarray(0, 16), p.address, p.prefix)) {
        return { code: V6Opt.StatusCode, value: encodeStatus(V6Status.NotOnLink, 'address is not on this link') };
      }
    }
  }
  return { code: V6Opt.StatusCode, value: encodeStatus(V6Status.Success, 'addresses are on link') };
}

export function respondV6(p: PreparedV6, req: Dhcpv6Message): V6Decision {
  const clientId = findV6(req.options, V6Opt.ClientId);
  const serverId = findV6(req.options, V6Opt.ServerId);
  if (serverId && !serverId.equals(p.serverDuid)) return { kind: 'ignore', reason: 'addressed to another server' };
  const base = (type: number, extra: V6Option[]): Dhcpv6Message => ({
    msgType: type,
    transactionId: req.transactionId,
    options: [
      ...(clientId ? [{ code: V6Opt.ClientId, value: clientId }] : []),
      { code: V6Opt.ServerId, value: p.serverDuid },
      ...extra,
      ...(p.dns ? [{ code: V6Opt.DnsServers, value: p.dns }] : []),
    ],
  });
  const needsClient = req.msgType !== V6Type.InformationRequest;
  if (needsClient && !clientId) return { kind: 'ignore', reason: 'no client identifier' };
  switch (req.msgType) {
    case V6Type.Solicit: {
      if (serverId) return { kind: 'ignore', reason: 'SOLICIT carrying a server identifier' };
      if (findV6(req.options, V6Opt.RapidCommit)) {
        const extra = [{ code: V6Opt.RapidCommit, value: Buffer.alloc(0) }, ...iaReplies(p, req)];
        return { kind: 'reply', message: base(V6Type.Reply, extra), note: 'REPLY (rapid commit)' };
      }
      return { kind: 'reply', message: base(V6Type.Advertise, iaReplies(p, req)), note: 'ADVERTISE' };
    }
    case V6Type.Request:
    case V6Type.Renew:
    case V6Type.Rebind:
      return { kind: 'reply', message: base(V6Type.Reply, iaReplies(p, req)), note: 'REPLY' };
    case V6Type.Confirm:
      return { kind: 'reply', message: base(V6Type.Reply, [confirmStatus(p, req)]), note: 'REPLY (confirm)' };
    case V6Type.InformationRequest:
      return { kind: 'reply', message: base(V6Type.Reply, []), note: 'REPLY (information)' };
    case V6Type.Release:
    case V6Type.Decline: {
      const status = { code: V6Opt.StatusCode, value: encodeStatus(V6Status.Success, 'noted') };
      const what = req.msgType === V6Type.Release ? 'release' : 'decline';
      return { kind: 'reply', message: base(V6Type.Reply, [status]), note: `REPLY (${what})` };
    }
    default:
      return { kind: 'ignore', reason: `message type ${req.msgType} is not for a server` };
  }
}
