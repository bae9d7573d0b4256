// 100,000 mutated and random packets straight into the decoders and responders: the only exception allowed is a
// DhcpDecodeError, and whatever the responder answers must encode and decode again. Seeded, so a failure
// reproduces; the seed is in the test name.
import { describe, expect, it } from 'vitest';
import { DhcpV4Config, DhcpV6Config } from '@virt-launcher/contracts';
import { DhcpDecodeError } from './errors.js';
import { silentLogger } from '@virt-launcher/shared';
import { clientBytes } from './testing/requests.js';
import { decodeDhcpPacket, encodeDhcpPacket } from './v4/packet.js';
import { MessageType as T, Opt } from './v4/options.js';
import { prepareV4 } from './v4/prepare.js';
import { respondV4 } from './v4/respond.js';
import { decodeDomainSearch, encodeDomainSearch } from './v4/domain-search.js';
import { decodeClasslessRoutes } from './v4/classless-routes.js';
import { V6Opt, decodeDhcpv6Message, encodeDhcpv6Message, encodeIaNa } from './v6/message.js';
import { prepareV6, respondV6 } from './v6/respond.js';

const SEED = 0x5eed1234;

/** xorshift32: small, fast and deterministic. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

function mutate(seed: Buffer, next: () => number): Buffer {
  let b = Buffer.from(seed);
  const edits = 1 + (next() % 6);
  for (let e = 0; e < edits; e++) {
    const at = next() % Math.max(1, b.length);
    switch (next() % 5) {
      case 0:
        b[at] = next() & 0xff;
        break;
      case 1:
        b[at] = (b[at] ?? 0) ^ (1 << (next() % 8));
        break;
      case 2:
        b = b.subarray(0, at);
        break;
      case 3:
        b = Buffer.concat([b.subarray(0, at), Buffer.from([next() & 0xff, next() & 0xff]), b.subarray(at)]);
        break;
      default:
        // Aim at the option area, where lengths live.
        if (b.length > 241) b[240 + (next() % (b.length - 240))] = [0, 1, 255, 52, 53, 119, 121][next() % 7] ?? 0;
    }
  }
  return b;
}

function v4Seeds(): Buffer[] {
  const mac = '52:54:00:12:34:56';
  const withOptions = (spec: Parameters<typeof clientBytes>[0], extra: Array<[number, Buffer]>): Buffer => {
    const p = decodeDhcpPacket(clientBytes(spec));
    for (const [c, v] of extra) p.options.set(c, v);
    return encodeDhcpPacket(p);
  };
  return [
    clientBytes({ type: T.Discover, mac, prl: [1, 3, 6, 12, 15, 26, 119, 121] }),
    clientBytes({ type: T.Request, mac, requested: '10.0.2.2', serverId: '10.0.2.1' }),
    clientBytes({ type: T.Request, mac, ciaddr: '10.0.2.2' }),
    clientBytes({ type: T.Inform, mac, ciaddr: '10.0.2.2', giaddr: '10.1.0.1' }),
    withOptions({ type: T.Discover, mac }, [
      [Opt.DomainSearch, encodeDomainSearch(['a.b.example.com', 'b.example.com', 'example.org'])],
      [Opt.ClasslessRoutes, Buffer.from([24, 192, 168, 1, 10, 0, 0, 1, 0, 10, 0, 0, 1])],
      [Opt.Overload, Buffer.from([3])],
      [230, Buffer.alloc(700, 7)],
      [Opt.MaxMessageSize, Buffer.from([2, 64])],
    ]),
  ];
}

describe(`fuzzing the codecs (seed ${SEED.toString(16)})`, () => {
  it('survives 80,000 DHCPv4 packets and every reply round-trips', () => {
    const next = rng(SEED);
    const p = prepareV4(
      DhcpV4Config.fromPartial({
        interfaceName: 'k6t-eth0',
        serverIp: '10.0.2.1',
        clientIpCidr: '10.0.2.2/24',
        router: '10.0.2.1',
        dnsServers: ['10.96.0.10'],
        searchDomains: ['svc.cluster.local'],
        routes: [{ destination: '10.128.0.0/14', gateway: '' }],
        privateOptions: [{ code: 250, value: Buffer.alloc(300, 1) }],
      }),
      silentLogger,
    );
    const seeds = v4Seeds();
    const outcome = { decoded: 0, rejected: 0, replies: 0 };
    for (let i = 0; i < 80_000; i++) {
      const data =
        i % 10 === 0
          ? Buffer.from(Array.from({ length: next() % 700 }, () => next() & 0xff))
          : mutate(seeds[i % seeds.length] ?? Buffer.alloc(0), next);
      try {
        const req = decodeDhcpPacket(data);
        outcome.decoded++;
        const s = req.options.get(Opt.DomainSearch);
        if (s) decodeDomainSearch(s);
        const r = req.options.get(Opt.ClasslessRoutes);
        if (r) decodeClasslessRoutes(r);
        const d = respondV4(p, req, { address: '0.0.0.0', port: 68 });
        if (d.kind === 'reply') {
          outcome.replies++;
          expect(decodeDhcpPacket(encodeDhcpPacket(d.packet)).xid).toBe(req.xid);
        }
      } catch (e) {
        if (!(e instanceof DhcpDecodeError))
          throw new Error(`packet ${i} (${data.toString('hex')}): ${String(e)}`, { cause: e });
        outcome.rejected++;
      }
    }
    // The mutations must reach every outcome, or the fuzzing says nothing.
    expect(outcome.decoded).toBeGreaterThan(1000);
    expect(outcome.rejected).toBeGreaterThan(1000);
    expect(outcome.replies).toBeGreaterThan(1000);
  });

  it('fits every reply to a long configuration into the size its request allows', () => {
    const next = rng(SEED ^ 0x57);
    const p = prepareV4(
      DhcpV4Config.fromPartial({
        interfaceName: 'k6t-eth0',
        serverIp: '10.0.2.1',
        clientIpCidr: '10.0.2.2/24',
        router: '10.0.2.1',
        dnsServers: ['10.96.0.10', '10.96.0.11', '10.96.0.12'],
        searchDomains: Array.from(
          { length: 32 },
          (_, i) => `namespace-${i}-with-a-long-name.team-${i % 5}.svc.cluster.local`,
        ),
        hostname: 'a-virtual-machine-with-a-long-name-0001',
        mtu: 1450,
        routes: [{ destination: '192.168.1.0/24', gateway: '10.0.2.1' }],
        ntpServers: ['10.0.0.5', '10.0.0.6'],
        tftpServerName: 'tftp.example.org',
        bootfileName: 'pxelinux.0',
        privateOptions: [
          { code: 224, value: Buffer.alloc(90, 1) },
          { code: 250, value: Buffer.alloc(300, 2) },
        ],
      }),
      silentLogger,
    );
    const seeds = v4Seeds();
    let replies = 0;
    for (let i = 0; i < 20_000; i++) {
      let req;
      try {
        req = decodeDhcpPacket(mutate(seeds[i % seeds.length] ?? Buffer.alloc(0), next));
      } catch (e) {
        if (e instanceof DhcpDecodeError) continue;
        throw e;
      }
      const d = respondV4(p, req, { address: '0.0.0.0', port: 68 });
      if (d.kind !== 'reply') continue;
      replies++;
      const max = req.options.get(Opt.MaxMessageSize);
      const limit = max?.length === 2 ? Math.max(576, Math.min(max.readUInt16BE(0), 1450)) : 576;
      const bytes = encodeDhcpPacket(d.packet);
      expect(bytes.length + 28, `packet ${i}`).toBeLessThanOrEqual(limit);
      const back = decodeDhcpPacket(bytes);
      const required = d.type === T.Nak ? [53, 54] : [53, 54, 1, 3, 6];
      for (const code of required) expect(back.options.has(code), `packet ${i} option ${code}`).toBe(true);
    }
    expect(replies).toBeGreaterThan(1000);
  });

  it('survives 20,000 DHCPv6 messages', () => {
    const next = rng(SEED ^ 0xffff);
    const p = prepareV6(
      DhcpV6Config.fromPartial({ interfaceName: 'k6t-eth0', clientIpCidr: 'fd10:0:2::2/120', dnsServers: ['fd00::a'] }),
    );
    const solicit = encodeDhcpv6Message({
      msgType: 1,
      transactionId: 0xabcdef,
      options: [
        { code: V6Opt.ClientId, value: Buffer.from('00030001525400123456', 'hex') },
        {
          code: V6Opt.IaNa,
          value: encodeIaNa({ iaid: 1, t1: 0, t2: 0, options: [{ code: V6Opt.IaAddr, value: Buffer.alloc(24) }] }),
        },
        { code: V6Opt.RapidCommit, value: Buffer.alloc(0) },
      ],
    });
    const outcome = { decoded: 0, rejected: 0, replies: 0 };
    for (let i = 0; i < 20_000; i++) {
      const data =
        i % 10 === 0 ? Buffer.from(Array.from({ length: next() % 200 }, () => next() & 0xff)) : mutate(solicit, next);
      try {
        const d = respondV6(p, decodeDhcpv6Message(data));
        outcome.decoded++;
        if (d.kind === 'reply') {
          outcome.replies++;
          decodeDhcpv6Message(encodeDhcpv6Message(d.message));
        }
      } catch (e) {
        if (!(e instanceof DhcpDecodeError))
          throw new Error(`message ${i} (${data.toString('hex')}): ${String(e)}`, { cause: e });
        outcome.rejected++;
      }
    }
    expect(outcome.decoded).toBeGreaterThan(500);
    expect(outcome.rejected).toBeGreaterThan(500);
    expect(outcome.replies).toBeGreaterThan(500);
  });
});
