import { describe, expect, it } from 'vitest';
import { decodeDhcpPacket, encodeDhcpPacket } from './packet.js';
import { Opt } from './options.js';
import { DhcpDecodeError, DhcpEncodeError } from '../errors.js';
import { clientPacket } from '../testing/requests.js';

describe('BOOTP/DHCP packet codec', () => {
  it('round-trips header fields and options', () => {
    const p = clientPacket({
      type: 3,
      mac: '52:54:00:12:34:56',
      xid: 0xdeadbeef,
      requested: '10.0.2.2',
      broadcast: true,
    });
    p.options.set(Opt.HostName, Buffer.from('guest'));
    const bytes = encodeDhcpPacket(p);
    expect(bytes.length).toBe(300);
    const back = decodeDhcpPacket(bytes);
    expect(back).toEqual({ ...p, options: back.options });
    expect([...back.options]).toEqual([...p.options]);
  });

  it('splits an option longer than 255 bytes and concatenates it back (RFC 3396)', () => {
    const p = clientPacket({ type: 1, mac: '52:54:00:12:34:56' });
    const long = Buffer.from(Array.from({ length: 600 }, (_, i) => i & 0xff));
    p.options.set(224, long);
    const bytes = encodeDhcpPacket(p);
    const at = bytes.indexOf(Buffer.from([224, 255]), 240);
    expect(bytes[at + 2 + 255]).toBe(224);
    expect(bytes[at + 2 + 255 + 1]).toBe(255);
    expect(bytes[at + 2 * 257]).toBe(224);
    expect(bytes[at + 2 * 257 + 1]).toBe(90);
    expect(decodeDhcpPacket(bytes).options.get(224)).toEqual(long);
  });

  it('reads options overloaded into file and sname (option 52)', () => {
    const p = clientPacket({ type: 1, mac: '52:54:00:12:34:56' });
    p.options.set(Opt.Overload, Buffer.from([3]));
    const bytes = encodeDhcpPacket(p);
    Buffer.from([Opt.HostName, 2, 104, 105, 255]).copy(bytes, 108); // file
    Buffer.from([Opt.HostName, 1, 33, 255]).copy(bytes, 44); // sname, concatenated after file
    const back = decodeDhcpPacket(bytes);
    expect(back.options.get(Opt.HostName)?.toString()).toBe('hi!');
    expect(back.file).toBe('');
  });

  it('writes options into file and sname with option 52, END and PAD (RFC 2131 §4.1)', () => {
    const p = clientPacket({ type: 2, mac: '52:54:00:12:34:56' });
    p.fileOptions = new Map([[Opt.HostName, Buffer.from('guest')]]);
    p.snameOptions = new Map([[Opt.DomainName, Buffer.from('ns.svc')]]);
    const bytes = encodeDhcpPacket(p);
    expect([...bytes.subarray(108, 108 + 8)]).toEqual([Opt.HostName, 5, ...Buffer.from('guest'), Opt.End]);
    expect(bytes.subarray(108 + 8, 236).every((b) => b === 0)).toBe(true);
    expect([...bytes.subarray(44, 44 + 9)]).toEqual([Opt.DomainName, 6, ...Buffer.from('ns.svc'), Opt.End]);
    const back = decodeDhcpPacket(bytes);
    expect(back.options.get(Opt.Overload)).toEqual(Buffer.from([3]));
    expect(back.options.get(Opt.HostName)?.toString()).toBe('guest');
    expect(back.options.get(Opt.DomainName)?.toString()).toBe('ns.svc');
    expect(back.options.get(Opt.MessageType)).toEqual(Buffer.from([2]));
    p.snameOptions = new Map();
    expect(decodeDhcpPacket(encodeDhcpPacket(p)).options.get(Opt.Overload)).toEqual(Buffer.from([1]));
  });

  it('refuses overload areas that cannot be written', () => {
    const p = clientPacket({ type: 2, mac: '52:54:00:12:34:56' });
    const tooBig = new Map([[224, Buffer.alloc(126)]]);
    expect(() => encodeDhcpPacket({ ...p, fileOptions: tooBig })).toThrow(DhcpEncodeError);
    expect(() => encodeDhcpPacket({ ...p, snameOptions: new Map([[224, Buffer.alloc(62)]]) })).toThrow(DhcpEncodeError);
    const small = new Map([[224, Buffer.alloc(1)]]);
    expect(() => encodeDhcpPacket({ ...p, file: 'pxelinux.0', fileOptions: small })).toThrow(DhcpEncodeError);
    const with52 = { ...p, options: new Map(p.options).set(Opt.Overload, Buffer.from([1])), fileOptions: small };
    expect(() => encodeDhcpPacket(with52)).toThrow(DhcpEncodeError);
    expect(encodeDhcpPacket({ ...p, fileOptions: new Map([[224, Buffer.alloc(125)]]) }).length).toBe(300);
  });

  it('rejects short packets, long hlen, bad cookie and truncated options', () => {
    const good = encodeDhcpPacket(clientPacket({ type: 1, mac: '52:54:00:12:34:56' }));
    expect(() => decodeDhcpPacket(good.subarray(0, 239))).toThrow(DhcpDecodeError);
    const hlen = Buffer.from(good);
    hlen[2] = 17;
    expect(() => decodeDhcpPacket(hlen)).toThrow(DhcpDecodeError);
    const cookie = Buffer.from(good);
    cookie[236] = 0;
    expect(() => decodeDhcpPacket(cookie)).toThrow(DhcpDecodeError);
    const trunc = Buffer.concat([good.subarray(0, 240), Buffer.from([Opt.HostName, 10, 1, 2])]);
    expect(() => decodeDhcpPacket(trunc)).toThrow(DhcpDecodeError);
  });

  it('refuses to encode impossible values', () => {
    const p = clientPacket({ type: 1, mac: '52:54:00:12:34:56' });
    expect(() => encodeDhcpPacket({ ...p, ciaddr: '300.1.1.1' })).toThrow(DhcpEncodeError);
    expect(() => encodeDhcpPacket({ ...p, sname: 'x'.repeat(65) })).toThrow(DhcpEncodeError);
    expect(() => encodeDhcpPacket({ ...p, options: new Map([[255, Buffer.alloc(1)]]) })).toThrow(DhcpEncodeError);
  });
});
