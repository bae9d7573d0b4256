import { describe, expect, it } from 'vitest';
import { DhcpV6Config } from '@virt-launcher/contracts';
import { DhcpConfigError, DhcpDecodeError } from '../errors.js';
import { parseIPv6 } from '../addr.js';
import {
  type Dhcpv6Message,
  V6Opt,
  V6Type,
  decodeDhcpv6Message,
  decodeIaNa,
  encodeDhcpv6Message,
  encodeIaAddr,
  encodeIaNa,
  findV6,
} from './message.js';
import { prepareV6, respondV6 } from './respond.js';

const p = prepareV6(
  DhcpV6Config.fromPartial({
    interfaceName: 'k6t-eth0',
    clientIpCidr: 'fd10:0:2::2/120',
    serverMac: '02:00:00:00:00:00',
    dnsServers: ['fd00::10'],
  }),
);
const clientId = Buffer.from('0003000152540012345', 'hex');
const ia = (iaid: number, addr?: string) => ({
  code: V6Opt.IaNa,
  value: encodeIaNa({
    iaid,
    t1: 0,
    t2: 0,
    options: addr ? [{ code: V6Opt.IaAddr, value: encodeIaAddr(parseIPv6(addr) ?? Buffer.alloc(16), 0, 0) }] : [],
  }),
});
const msg = (msgType: number, extra: Dhcpv6Message['options'] = []): Dhcpv6Message => ({
  msgType,
  transactionId: 0xabcdef,
  options: [{ code: V6Opt.ClientId, value: clientId }, ...extra],
});

function reply(m: Dhcpv6Message): Dhcpv6Message {
  // Through the wire format, as the server does.
  const d = respondV6(p, decodeDhcpv6Message(encodeDhcpv6Message(m)));
  if (d.kind !== 'reply') throw new Error(d.reason);
  return decodeDhcpv6Message(encodeDhcpv6Message(d.message));
}

describe('respondV6', () => {
  it('advertises the guest address in IA_NA with the IAID, DUID-LL server id and DNS', () => {
    const r = reply(msg(V6Type.Solicit, [ia(0x11223344)]));
    expect(r.msgType).toBe(V6Type.Advertise);
    expect(r.transactionId).toBe(0xabcdef);
    expect(findV6(r.options, V6Opt.ClientId)).toEqual(clientId);
    expect(findV6(r.options, V6Opt.ServerId)).toEqual(Buffer.from('00030001020000000000', 'hex'));
    expect(findV6(r.options, V6Opt.DnsServers)).toEqual(parseIPv6('fd00::10'));
    const got = decodeIaNa(findV6(r.options, V6Opt.IaNa) ?? Buffer.alloc(0));
    expect(got.iaid).toBe(0x11223344);
    const addr = findV6(got.options, V6Opt.IaAddr) ?? Buffer.alloc(0);
    expect(addr.subarray(0, 16)).toEqual(parseIPv6('fd10:0:2::2'));
    expect(addr.readUInt32BE(16)).toBe(86_313_600);
  });

  it('replies at once to SOLICIT with rapid commit', () => {
    const r = reply(msg(V6Type.Solicit, [ia(1), { code: V6Opt.RapidCommit, value: Buffer.alloc(0) }]));
    expect(r.msgType).toBe(V6Type.Reply);
    expect(findV6(r.options, V6Opt.RapidCommit)).toEqual(Buffer.alloc(0));
  });

  it.each([V6Type.Request, V6Type.Renew, V6Type.Rebind])('answers message type %i with REPLY and the address', (t) => {
    const r = reply(msg(t, [ia(9), { code: V6Opt.ServerId, value: p.serverDuid }]));
    expect(r.msgType).toBe(V6Type.Reply);
    expect(decodeIaNa(findV6(r.options, V6Opt.IaNa) ?? Buffer.alloc(0)).iaid).toBe(9);
  });

  it('CONFIRMs an on-link address and reports NotOnLink for another prefix', () => {
    const ok = reply(msg(V6Type.Confirm, [ia(1, 'fd10:0:2::2')]));
    expect(findV6(ok.options, V6Opt.StatusCode)?.readUInt16BE(0)).toBe(0);
    const off = reply(msg(V6Type.Confirm, [ia(1, 'fd99::2')]));
    expect(findV6(off.options, V6Opt.StatusCode)?.readUInt16BE(0)).toBe(4);
  });

  it('answers INFORMATION-REQUEST without any IA', () => {
    const r = reply({ msgType: V6Type.InformationRequest, transactionId: 5, options: [] });
    expect(r.msgType).toBe(V6Type.Reply);
    expect(findV6(r.options, V6Opt.IaNa)).toBeUndefined();
    expect(findV6(r.options, V6Opt.DnsServers)).toBeDefined();
  });

  it('ignores messages for other servers, without client id, and server-side types', () => {
    const other = msg(V6Type.Request, [{ code: V6Opt.ServerId, value: Buffer.from('000300010200000000ff', 'hex') }]);
    expect(respondV6(p, other).kind).toBe('ignore');
    expect(respondV6(p, { msgType: V6Type.Solicit, transactionId: 1, options: [] }).kind).toBe('ignore');
    expect(respondV6(p, msg(V6Type.Advertise)).kind).toBe('ignore');
    expect(respondV6(p, msg(V6Type.Solicit, [{ code: V6Opt.ServerId, value: p.serverDuid }])).kind).toBe('ignore');
  });

  it('rejects relay messages and truncated options as decode errors', () => {
    expect(() => decodeDhcpv6Message(Buffer.from([12, 0, 0, 0]))).toThrow(DhcpDecodeError);
    expect(() => decodeDhcpv6Message(Buffer.from([1, 0, 0, 1, 0, 1, 0, 9, 1]))).toThrow(DhcpDecodeError);
    expect(() => respondV6(p, msg(V6Type.Solicit, [{ code: V6Opt.IaNa, value: Buffer.alloc(3) }]))).toThrow(
      DhcpDecodeError,
    );
  });

  it('rejects a bad config', () => {
    expect(() => prepareV6(DhcpV6Config.fromPartial({ interfaceName: 'x', clientIpCidr: '10.0.2.2/24' }))).toThrow(
      DhcpConfigError,
    );
  });
});
