// Crafted REQUESTs through the real socket: NAK and ACK decisions as a guest on the bridge sees them, then a
// burst of garbage that must get no answer and must not stop the server.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PodNetwork, createPodNetwork } from './testing/pod-network.js';
import { type CliProcess, startCli } from './testing/cli-process.js';
import { exchange } from './testing/guest-exchange.js';
import { clientBytes } from './testing/requests.js';
import { runUdhcpc } from './testing/udhcpc.js';
import { decodeDhcpPacket } from './v4/packet.js';
import { MessageType, Opt } from './v4/options.js';

const BCAST = '10.0.2.255';

describe('crafted client traffic', () => {
  let net: PodNetwork;
  let server: CliProcess;
  const xid = (): number => randomBytes(4).readUInt32BE(0);

  beforeAll(async () => {
    net = await createPodNetwork();
    await net.exec(net.guest, 'ip', ['addr', 'add', '10.0.2.2/24', 'dev', 'eth0']);
    server = await startCli(net.pod, [
      '--interface',
      'k6t-eth0',
      '--server-ip',
      '10.0.2.1',
      '--client-ip',
      '10.0.2.2/24',
      '--router',
      '10.0.2.1',
      '--client-mac',
      net.guestMac,
      '--log-level',
      'debug',
    ]);
  });
  afterAll(async () => {
    await server?.stop();
    await net?.remove();
  });

  const ask = async (spec: Parameters<typeof clientBytes>[0]) => {
    const replies = await exchange(net, [{ data: clientBytes(spec), address: BCAST, port: 67 }], { expect: 1 });
    expect(replies).toHaveLength(1);
    const reply = decodeDhcpPacket(replies[0] ?? Buffer.alloc(0));
    expect(reply.xid).toBe(spec.xid);
    return reply;
  };

  it('NAKs an INIT-REBOOT request for the wrong address', async () => {
    const reply = await ask({ type: MessageType.Request, mac: net.guestMac, xid: xid(), requested: '10.0.2.77' });
    expect(reply.options.get(Opt.MessageType)?.[0]).toBe(MessageType.Nak);
    expect(reply.yiaddr).toBe('0.0.0.0');
  });

  it('stays silent on a SELECTING request naming another server (RFC 2131 §4.3.2)', async () => {
    const spec = {
      type: MessageType.Request,
      mac: net.guestMac,
      xid: xid(),
      requested: '10.0.2.2',
      serverId: '10.0.2.9',
    };
    const replies = await exchange(net, [{ data: clientBytes(spec), address: BCAST, port: 67 }], {
      expect: 0,
      windowMs: 1500,
    });
    expect(replies).toHaveLength(0);
    // It was received and judged, not lost: the server logged the client's choice.
    expect(server.lines.some((l) => l.msg === 'client chose another DHCP server' && l.xid === spec.xid)).toBe(true);
  });

  it('NAKs a RENEWING request from the wrong ciaddr', async () => {
    const reply = await ask({ type: MessageType.Request, mac: net.guestMac, xid: xid(), ciaddr: '10.0.2.3' });
    expect(reply.options.get(Opt.MessageType)?.[0]).toBe(MessageType.Nak);
  });

  it('ACKs a RENEWING request from the guest address, unicast', async () => {
    const reply = await ask({ type: MessageType.Request, mac: net.guestMac, xid: xid(), ciaddr: '10.0.2.2' });
    expect(reply.options.get(Opt.MessageType)?.[0]).toBe(MessageType.Ack);
    expect(reply.yiaddr).toBe('10.0.2.2');
  });

  it('ACKs an INFORM without a lease', async () => {
    const reply = await ask({ type: MessageType.Inform, mac: net.guestMac, xid: xid(), ciaddr: '10.0.2.2' });
    expect(reply.options.get(Opt.MessageType)?.[0]).toBe(MessageType.Ack);
    expect(reply.yiaddr).toBe('0.0.0.0');
    expect(reply.options.has(Opt.LeaseTime)).toBe(false);
    expect(reply.options.get(Opt.Router)).toEqual(Buffer.from([10, 0, 2, 1]));
  });

  it('ignores another MAC', async () => {
    const other = clientBytes({ type: MessageType.Discover, mac: '02:aa:bb:cc:dd:ee', xid: xid() });
    const replies = await exchange(net, [{ data: other, address: BCAST, port: 67 }], { expect: 0, windowMs: 1500 });
    expect(replies).toHaveLength(0);
  });

  it('answers no garbage, survives it, and still leases afterwards', async () => {
    const garbage: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 3 === 0) {
        garbage.push(randomBytes(1 + (i % 600)));
      } else {
        // A structurally valid DISCOVER from a foreign MAC, then mutated: a reply would mean the filter leaked.
        const p = clientBytes({ type: MessageType.Discover, mac: '02:de:ad:be:ef:00', xid: i });
        const flips = 1 + (i % 8);
        for (let f = 0; f < flips; f++) {
          const at = randomBytes(2).readUInt16BE(0) % p.length;
          if (at < 28 || at > 33) p[at] = randomBytes(1)[0] ?? 0;
        }
        garbage.push(i % 7 === 0 ? p.subarray(0, randomBytes(2).readUInt16BE(0) % p.length) : p);
      }
    }
    const sends = garbage.map((data) => ({ data, address: BCAST, port: 67 }));
    const replies = await exchange(net, sends, { expect: 0, windowMs: 2000 });
    expect(replies).toHaveLength(0);
    // The burst did reach the server (a few may be lost to socket buffers) and each one was judged and dropped.
    const dropped = server.lines.filter((l) => l.msg === 'ignoring packet' || l.msg === 'dropping malformed packet');
    expect(dropped.length).toBeGreaterThan(1500);
    await net.exec(net.guest, 'ip', ['addr', 'flush', 'dev', 'eth0']);
    const lease = await runUdhcpc(net);
    expect(lease.bound?.ip, lease.output).toBe('10.0.2.2');
    expect(server.lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});
