// Builds client messages the way a DHCP client would, for tests.
import { parseIPv4, parseMac } from '../addr.js';
import { type DhcpPacket, encodeDhcpPacket } from '../v4/packet.js';
import { Opt } from '../v4/options.js';

export interface RequestSpec {
  type: number;
  mac: string;
  xid?: number;
  requested?: string;
  serverId?: string;
  ciaddr?: string;
  giaddr?: string;
  broadcast?: boolean;
  prl?: number[];
}

export function clientPacket(spec: RequestSpec): DhcpPacket {
  const options = new Map<number, Buffer>([[Opt.MessageType, Buffer.from([spec.type])]]);
  if (spec.requested) options.set(Opt.RequestedIp, parseIPv4(spec.requested) ?? Buffer.alloc(4));
  if (spec.serverId) options.set(Opt.ServerId, parseIPv4(spec.serverId) ?? Buffer.alloc(4));
  if (spec.prl) options.set(Opt.ParameterRequestList, Buffer.from(spec.prl));
  return {
    op: 1,
    htype: 1,
    hlen: 6,
    hops: 0,
    xid: spec.xid ?? 0x1234567,
    secs: 0,
    flags: spec.broadcast ? 0x8000 : 0,
    ciaddr: spec.ciaddr ?? '0.0.0.0',
    yiaddr: '0.0.0.0',
    siaddr: '0.0.0.0',
    giaddr: spec.giaddr ?? '0.0.0.0',
    chaddr: parseMac(spec.mac) ?? Buffer.alloc(6),
    sname: '',
    file: '',
    options,
  };
}

export function clientBytes(spec: RequestSpec): Buffer {
  return encodeDhcpPacket(clientPacket(spec));
}
