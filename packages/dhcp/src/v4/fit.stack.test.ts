import { describe, expect, it } from 'vitest';
import { DhcpV4Config } from '@virt-launcher/contracts';
import { silentLogger } from '@virt-launcher/shared';
import { clientPacket } from '../testing/requests.js';
import { MessageType as T, Opt, type Options } from './options.js';
import { decodeDhcpPacket, encodeDhcpPacket } from './packet.js';
import { prepareV4 } from './prepare.js';
import { type Decision, respondV4 } from './respond.js';
import { dropOrder, fitReply, replyLimit } from './fit.js';
import { decodeDomainSearch, encodeDomainSearch } from './domain-search.js';

const MAC = '52:54:00:aa:bb:cc';
const fromClient = { address: '0.0.0.0', port: 68 };
/** Bytes of IP and UDP headers: a limit of 576 leaves 548 for the DHCP message. */
const IP_UDP = 28;
/** busybox udhcpc's requested options plus what the guest image asks for with -O. */
const UDHCPC_PRL = [1, 3, 6, 12, 15, 28, 42, 26, 119, 121];

const domains = (n: number, make: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => make(i));
/** The report's case: 12 search domains, 3 DNS servers, a 38-character VM name (OFFER was 672 bytes). */
const reported = DhcpV4Config.fromPartial({
  interfaceName: 'k6t-eth0',
  serverIp: '10.0.2.1',
  clientIpCidr: '10.0.2.2/24',
  router: '10.0.2.1',
  dnsServers: ['10.96.0.10', '10.96.0.11', '10.96.0.12'],
  searchDomains: domains(12, (i) => `namespace-number-${String(i).padStart(2, '0')}.svc.cluster.local`),
  hostname: 'a-virtual-machine-with-a-long-name-0001',
  mtu: 1450,
});

function offer(cfg: DhcpV4Config, maxMessage?: number, prl: number[] = UDHCPC_PRL): Buffer {
  const req = clientPacket({ type: T.Discover, mac: MAC, prl });
  if (maxMessage !== undefined) req.options.set(Opt.MaxMessageSize, Buffer.from([maxMessage >> 8, maxMessage & 0xff]));
  const d: Decision = respondV4(prepareV4(cfg, silentLogger), req, fromClient);
  if (d.kind !== 'reply') throw new Error(`expected a reply, got ${d.kind}`);
  return encodeDhcpPacket(d.packet);
}

describe('replyLimit (option 57)', () => {
  it('is 576 without option 57 or with a malformed or too small one', () => {
    expect(replyLimit(undefined, 1500)).toBe(576);
    expect(replyLimit(Buffer.from([2]), 1500)).toBe(576);
    expect(replyLimit(Buffer.from([0, 200]), 1500)).toBe(576);
  });
  it("follows the client's option 57 up to the link MTU", () => {
    expect(replyLimit(Buffer.from([0x02, 0x58]), 1500)).toBe(600);
    expect(replyLimit(Buffer.from([0xff, 0xff]), 1450)).toBe(1450);
  });
});

describe('fitting a reply into 576 bytes', () => {
  it('sends the reported configuration whole, within 576 bytes, by overloading file and sname', () => {
    const bytes = offer(reported, 576);
    expect(bytes.length + IP_UDP).toBeLessThanOrEqual(576);
    const back = decodeDhcpPacket(bytes);
    const prepared = prepareV4(reported, silentLogger);
    for (const [code, value] of prepared.options) expect(back.options.get(code), `option ${code}`).toEqual(value);
    expect(back.options.get(Opt.Overload)?.[0]).toBeGreaterThan(0);
    // The options field keeps what a client cannot work without, where one ignoring option 52 still finds it.
    const head = decodeDhcpPacket(Buffer.concat([bytes.subarray(0, 240), optionsFieldOnly(bytes)]));
    for (const code of [53, 54, 51, 1, 3, 6]) expect(head.options.has(code), `option ${code}`).toBe(true);
  });

  it('applies 576 to a client that sends no option 57', () => {
    expect(offer(reported).length + IP_UDP).toBeLessThanOrEqual(576);
    // Without the fix this reply was 672 bytes on the wire, over busybox udhcpc's ~656.
    expect(offer(reported, 1500).length + IP_UDP).toBeGreaterThan(576);
  });

  it('lays the overloaded fields out as RFC 2131 §4.1 says: options from byte 0, END, then PAD', () => {
    const bytes = offer(reported, 576);
    const overload = decodeDhcpPacket(bytes).options.get(Opt.Overload)?.[0] ?? 0;
    expect(overload & 1).toBe(1); // the file field is used before sname
    const file = bytes.subarray(108, 236);
    expect(file[0]).not.toBe(0);
    const end = walkToEnd(file);
    expect(end).toBeGreaterThan(0);
    expect([...file.subarray(end + 1)].every((b) => b === 0)).toBe(true);
    expect(bytes.readUInt32BE(236)).toBe(0x63825363);
  });

  it('shortens a 32-domain search list to its leading domains and keeps everything else', () => {
    const search = domains(
      32,
      (i) => `very-long-namespace-name-${i}-abcdefghijklmnopqrstu.team-${i}.svc.cluster.local`,
    );
    const cfg = {
      ...reported,
      searchDomains: search,
      routes: [{ destination: '192.168.1.0/24', gateway: '10.0.2.1' }],
    };
    const bytes = offer(cfg, 576);
    expect(bytes.length + IP_UDP).toBeLessThanOrEqual(576);
    const back = decodeDhcpPacket(bytes);
    const sent = decodeDomainSearch(back.options.get(Opt.DomainSearch) ?? Buffer.alloc(0));
    expect(sent.length).toBeGreaterThan(0);
    expect(sent).toEqual(search.slice(0, sent.length));
    for (const code of [1, 3, 6, 12, 15, 26, 121]) expect(back.options.has(code), `option ${code}`).toBe(true);
    // One more domain would not have fitted: the list is as long as it can be.
    const p = prepareV4(cfg, silentLogger);
    const oneMore = new Map(p.options).set(Opt.DomainSearch, encodeDomainSearch(search.slice(0, sent.length + 1)));
    const fixed = new Map([
      [53, Buffer.from([2])],
      [54, Buffer.alloc(4)],
      [51, Buffer.alloc(4)],
    ]);
    const fitted = fitReply({ fixed, configured: oneMore, searchDomains: [], requested: undefined, limit: 576 });
    expect(fitted.dropped).toContain(Opt.DomainSearch);
  });

  it('keeps the whole list when the client takes larger messages', () => {
    const search = domains(32, (i) => `ns-${i}.svc.cluster.local`);
    const back = decodeDhcpPacket(offer({ ...reported, searchDomains: search }, 1500));
    expect(decodeDomainSearch(back.options.get(Opt.DomainSearch) ?? Buffer.alloc(0))).toEqual(search);
    expect(back.options.has(Opt.Overload)).toBe(false);
  });
});

describe('drop order', () => {
  const every: Options = new Map([
    [1, Buffer.alloc(4)],
    [3, Buffer.alloc(4)],
    [6, Buffer.alloc(12)],
    [12, Buffer.alloc(60, 0x61)],
    [15, Buffer.alloc(60, 0x62)],
    [26, Buffer.from([5, 0xaa])],
    [42, Buffer.alloc(40)],
    [66, Buffer.alloc(60, 0x63)],
    [67, Buffer.alloc(100, 0x64)],
    [119, Buffer.alloc(200)],
    [121, Buffer.alloc(80)],
    [224, Buffer.alloc(50)],
    [250, Buffer.alloc(50)],
  ]);
  const fixed: Options = new Map([
    [53, Buffer.from([2])],
    [54, Buffer.alloc(4)],
    [51, Buffer.alloc(4)],
  ]);

  it('drops private options, boot, NTP, search, domain, host name, routes, then MTU; never 1, 3, 6', () => {
    expect(dropOrder(every.keys(), undefined)).toEqual([250, 224, 67, 66, 42, 119, 15, 12, 121, 26]);
  });

  it('drops what the client did not ask for before anything it asked for', () => {
    expect(dropOrder(every.keys(), new Set([1, 3, 6, 67, 119]))).toEqual([250, 224, 66, 42, 15, 12, 121, 26, 67, 119]);
  });

  it('drops exactly as many options as needed, in that order', () => {
    const fitted = fitReply({ fixed, configured: every, searchDomains: [], requested: undefined, limit: 576 });
    const order = dropOrder(every.keys(), undefined);
    expect(fitted.dropped).toEqual(order.slice(0, fitted.dropped.length));
    expect(fitted.dropped.length).toBeGreaterThan(0);
    for (const code of [1, 3, 6, 26]) expect(fitted.options.has(code)).toBe(true);
    const bytes = encodeDhcpPacket({
      ...decodeDhcpPacket(encodeDhcpPacket(clientPacket({ type: 1, mac: MAC }))),
      ...fitted,
    });
    expect(bytes.length + IP_UDP).toBeLessThanOrEqual(576);
    // Keeping the last dropped option would not have fitted.
    const last = fitted.dropped[fitted.dropped.length - 1] ?? 0;
    const without = new Map([...every].filter(([c]) => !fitted.dropped.slice(0, -1).includes(c)));
    const again = fitReply({ fixed, configured: without, searchDomains: [], requested: new Set(), limit: 576 });
    expect(again.dropped[0]).toBe(last);
  });

  it('sends nothing but the lease, 1, 3 and 6 when even 26 does not fit, and says so', () => {
    const dns: Options = new Map([
      [1, Buffer.alloc(4)],
      [3, Buffer.alloc(4)],
      [6, Buffer.alloc(4 * 70)],
      [26, Buffer.from([5, 0xaa])],
    ]);
    const fitted = fitReply({ fixed, configured: dns, searchDomains: [], requested: undefined, limit: 576 });
    expect(fitted.dropped).toEqual([26]);
    expect([...fitted.options.keys()]).toEqual([53, 54, 51, 1, 3, 6]);
  });
});

describe('values split over the areas (RFC 3396)', () => {
  it('puts a split value in the options field first and its tail in file, and decodes it back whole', () => {
    const value = Buffer.from(Array.from({ length: 320 }, (_, i) => (i * 7) & 0xff));
    const configured: Options = new Map([
      [1, Buffer.alloc(4)],
      [224, value],
    ]);
    const fixed: Options = new Map([[53, Buffer.from([2])]]);
    const fitted = fitReply({ fixed, configured, searchDomains: [], requested: undefined, limit: 576 });
    expect(fitted.dropped).toEqual([]);
    expect(fitted.options.get(224)?.length).toBe(255);
    expect(fitted.fileOptions.get(224)?.length).toBe(65);
    const base = decodeDhcpPacket(encodeDhcpPacket(clientPacket({ type: 1, mac: MAC })));
    const back = decodeDhcpPacket(encodeDhcpPacket({ ...base, ...fitted }));
    expect(back.options.get(224)).toEqual(value);
  });
});

/** The options field of an encoded packet, cut at its END, with option 52 removed. */
function optionsFieldOnly(bytes: Buffer): Buffer {
  const area = bytes.subarray(240);
  const out: number[] = [];
  for (let i = 0; i < area.length && area[i] !== 255;) {
    const code = area[i] ?? 0;
    if (code === 0) {
      i++;
      continue;
    }
    const len = area[i + 1] ?? 0;
    if (code !== Opt.Overload) out.push(...area.subarray(i, i + 2 + len));
    i += 2 + len;
  }
  return Buffer.from([...out, 255]);
}

/** Index of the END that closes a TLV area, or -1. */
function walkToEnd(area: Buffer): number {
  for (let i = 0; i < area.length;) {
    const code = area[i] ?? 0;
    if (code === 255) return i;
    i += code === 0 ? 1 : 2 + (area[i + 1] ?? 0);
  }
  return -1;
}
