import { describe, expect, it } from 'vitest';
import { DhcpV4Config } from '@virt-launcher/contracts';
import { silentLogger } from '@virt-launcher/shared';
import { prepareV4 } from './prepare.js';
import { type Decision, encodeDecision, respondV4 } from './respond.js';
import { type DhcpPacket, encodeDhcpPacket } from './packet.js';
import { MessageType as T, Opt } from './options.js';
import { clientPacket } from '../testing/requests.js';

const MAC = '52:54:00:12:34:56';
const fromClient = { address: '0.0.0.0', port: 68 };

const plain = prepareV4(
  DhcpV4Config.fromPartial({
    interfaceName: 'k6t-eth0',
    serverIp: '10.0.2.1',
    clientIpCidr: '10.0.2.2/24',
    clientMac: MAC,
    router: '10.0.2.1',
    dnsServers: ['10.96.0.10'],
    searchDomains: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
    mtu: 1450,
    hostname: 'vmi',
  }),
  silentLogger,
);

// Too long for 576 bytes even with file and sname: replies drop and shorten, following option 55.
const long = prepareV4(
  DhcpV4Config.fromPartial({
    interfaceName: 'k6t-eth0',
    serverIp: '10.0.2.1',
    clientIpCidr: '10.0.2.2/24',
    clientMac: MAC,
    router: '10.0.2.1',
    dnsServers: ['10.96.0.10'],
    searchDomains: Array.from({ length: 24 }, (_, i) => `namespace-${i}.svc.cluster.local`),
    hostname: 'h'.repeat(60),
    privateOptions: [{ code: 250, value: Buffer.alloc(200, 1) }],
  }),
  silentLogger,
);

function replied(d: Decision): Extract<Decision, { kind: 'reply' }> {
  if (d.kind !== 'reply') throw new Error(`expected a reply, got ${d.kind}`);
  return d;
}

/** Requests of every kind that gets a reply, with the per-request header fields varied. */
function requests(seed: number): DhcpPacket[] {
  let x = seed;
  const next = (n: number): number => ((x = (x * 1103515245 + 12345) >>> 0) >>> 8) % n;
  const out: DhcpPacket[] = [];
  for (let i = 0; i < 200; i++) {
    const kind = next(5);
    const base = clientPacket({
      type: [T.Discover, T.Request, T.Request, T.Request, T.Inform][kind] ?? T.Discover,
      mac: MAC,
      xid: next(0x7fffffff) * 2 + next(2),
      broadcast: next(2) === 1,
      ...(kind === 1 ? { serverId: '10.0.2.1', requested: '10.0.2.2' } : {}),
      ...(kind === 2 ? { requested: '10.0.2.2' } : {}),
      ...(kind === 3 || kind === 4 ? { ciaddr: '10.0.2.2' } : {}),
      ...(next(3) === 0 ? { giaddr: `10.9.${next(256)}.${next(256)}` } : {}),
      ...(next(2) === 0 ? { prl: [1, 3, 6, 12, 15, 26, 119, 121, 250].filter(() => next(3) > 0) } : {}),
    });
    const limit = [undefined, 576, 900, 1500, 65535][next(5)];
    if (limit !== undefined) base.options.set(Opt.MaxMessageSize, Buffer.from([limit >> 8, limit & 0xff]));
    out.push({ ...base, flags: base.flags | next(0x7fff) });
  }
  return out;
}

describe('reply templates', () => {
  it.each([
    ['a configuration that fits', plain],
    ['a configuration that is cut to fit', long],
  ])('give the same bytes as encoding the decided packet, for %s', (_name, p) => {
    let fromTemplate = 0;
    for (const req of requests(p === plain ? 1 : 2)) {
      const d = replied(respondV4(p, req, fromClient));
      if (d.template) fromTemplate++;
      expect(encodeDecision(d)).toEqual(encodeDhcpPacket(d.packet));
    }
    expect(fromTemplate).toBe(200);
  });

  it('serve an OFFER and a later one of the same kind from the same encoded bytes, with their own fields', () => {
    const first = replied(
      respondV4(plain, clientPacket({ type: T.Discover, mac: MAC, xid: 1, prl: [1, 3] }), fromClient),
    );
    const again = replied(
      respondV4(plain, clientPacket({ type: T.Discover, mac: MAC, xid: 2, prl: [1, 3, 6, 15] }), fromClient),
    );
    expect(again.template).toBe(first.template);
    expect(again.packet.options).toBe(first.packet.options);
    const [a, b] = [encodeDecision(first), encodeDecision(again)];
    expect(a.readUInt32BE(4)).toBe(1);
    expect(b.readUInt32BE(4)).toBe(2);
    // The template itself is never written to.
    expect(first.template?.readUInt32BE(4)).toBe(0);
  });

  it('follow option 55 when the reply is cut: what is dropped depends on what the client asked for', () => {
    const ask = (prl: number[]): Extract<Decision, { kind: 'reply' }> =>
      replied(respondV4(long, clientPacket({ type: T.Discover, mac: MAC, prl }), fromClient));
    const noHostName = ask([1, 3, 6, 15, 119]);
    const withHostName = ask([1, 3, 6, 12, 15, 119]);
    expect(noHostName.fit?.dropped).toContain(Opt.HostName);
    expect(withHostName.fit?.dropped).not.toContain(Opt.HostName);
    const areas = [withHostName.packet.options, withHostName.packet.fileOptions, withHostName.packet.snameOptions];
    expect(areas.some((a) => a?.has(Opt.HostName))).toBe(true);
    expect(ask([1, 3, 6, 15, 119]).template).toBe(noHostName.template);
  });

  it('are not used for a NAK, whose message is its own', () => {
    const req = clientPacket({ type: T.Request, mac: MAC, requested: '10.0.2.9', serverId: '10.0.2.1' });
    const nak = replied(respondV4(plain, req, fromClient));
    expect(nak.type).toBe(T.Nak);
    expect(nak.template).toBeUndefined();
    expect(nak.packet.options.get(Opt.Message)?.toString()).toContain('10.0.2.9');
    // The next OFFER does not carry the NAK's message.
    const offer = replied(respondV4(plain, clientPacket({ type: T.Discover, mac: MAC }), fromClient));
    expect(offer.packet.options.has(Opt.Message)).toBe(false);
  });
});
