// Long options against the real client: busybox udhcpc (as in CirrOS and Alpine) says option 57 = 576 and drops
// replies over ~656 bytes. Kubernetes allows 32 search domains of 2,048 characters in all; a guest must still get
// its lease, with the options it needs, from replies that fit 576 bytes.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PodNetwork, createPodNetwork } from './testing/pod-network.js';
import { type CliProcess, startCli } from './testing/cli-process.js';
import { exchange } from './testing/guest-exchange.js';
import { clientPacket } from './testing/requests.js';
import { runUdhcpc } from './testing/udhcpc.js';
import { decodeDhcpPacket, encodeDhcpPacket } from './v4/packet.js';
import { MessageType, Opt } from './v4/options.js';
import { decodeDomainSearch } from './v4/domain-search.js';

/** Bytes of IP and UDP headers: a 576-byte datagram carries a DHCP message of at most 548. */
const IP_UDP = 28;
const HOSTNAME = 'a-virtual-machine-with-a-long-name-0001';
const DNS = '10.96.0.10 10.96.0.11 10.96.0.12';

/** 32 domains of 63 characters, 2,047 characters as one line: Kubernetes' limits. */
const KUBERNETES_MAX = Array.from(
  { length: 32 },
  (_, i) => `namespace-${String(i).padStart(2, '0')}-with-a-rather-longer-name.team-${i % 4}.svc.cluster.local`,
);
/** The report's case: 12 domains (the OFFER was 672 bytes before overload). */
const TWELVE = Array.from({ length: 12 }, (_, i) => `namespace-number-${String(i).padStart(2, '0')}.svc.cluster.local`);

function serveArgs(mac: string, search: string[]): string[] {
  return [
    '--interface',
    'k6t-eth0',
    '--server-ip',
    '10.0.2.1',
    '--client-ip',
    '10.0.2.2/24',
    '--client-mac',
    mac,
    '--router',
    '10.0.2.1',
    '--dns',
    DNS.replaceAll(' ', ','),
    '--search',
    search.join(','),
    '--hostname',
    HOSTNAME,
    '--mtu',
    '1450',
    '--route',
    '192.168.1.0/24,10.0.2.1',
  ];
}

describe('long options through busybox udhcpc', () => {
  let net: PodNetwork;
  let server: CliProcess | undefined;

  beforeAll(async () => {
    net = await createPodNetwork();
  });
  afterAll(async () => {
    await server?.stop();
    await net?.remove();
  });

  const serve = async (search: string[]): Promise<CliProcess> => {
    await server?.stop();
    server = await startCli(net.pod, serveArgs(net.guestMac, search));
    return server;
  };

  it('gets every option of the reported configuration, some read from the file field', async () => {
    const s = await serve(TWELVE);
    const r = await runUdhcpc(net);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.bound).toMatchObject({
      ip: '10.0.2.2',
      subnet: '255.255.255.0',
      router: '10.0.2.1',
      dns: DNS,
      mtu: '1450',
      hostname: HOSTNAME,
      search: TWELVE.join(' '),
      staticroutes: '192.168.1.0/24 10.0.2.1 0.0.0.0/0 10.0.2.1',
    });
    // udhcpc read part of these from the file field (option 52): the server says it put them there, dropped nothing.
    const offer = s.lines.find((l) => l.msg === 'sent DHCPOFFER');
    expect(offer?.fit).toMatchObject({ limit: 576, dropped: [] });
    expect((offer?.fit as { inFile: number[] }).inFile).toContain(Opt.HostName);
  });

  it("gets a lease with 32 search domains of 2,047 characters, keeping the list's leading domains", async () => {
    const s = await serve(KUBERNETES_MAX);
    const r = await runUdhcpc(net);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.bound).toMatchObject({
      ip: '10.0.2.2',
      subnet: '255.255.255.0',
      router: '10.0.2.1',
      dns: DNS,
      mtu: '1450',
      hostname: HOSTNAME,
    });
    const search = (r.bound?.search ?? '').split(' ').filter(Boolean);
    expect(search.length).toBeGreaterThan(0);
    expect(search).toEqual(KUBERNETES_MAX.slice(0, search.length));
    const offer = s.lines.find((l) => l.msg === 'sent DHCPOFFER');
    expect(offer?.fit).toMatchObject({ limit: 576, searchDomainsKept: search.length });
    // The list's tail went into sname: udhcpc joined it to the part in the options field (RFC 3396).
    expect((offer?.fit as { inSname: number[] }).inSname).toContain(Opt.DomainSearch);
  });

  it.each([
    ['no option 57', undefined],
    ['option 57 = 576', 576],
  ])('answers a DISCOVER with %s in at most 576 bytes on the wire', async (_name, maxMessage) => {
    await serve(KUBERNETES_MAX);
    // The crafted client sends to the bridge's broadcast address, which needs an address on the guest side.
    await net.exec(net.guest, 'ip', ['addr', 'replace', '10.0.2.2/24', 'dev', 'eth0']);
    const req = clientPacket({
      type: MessageType.Discover,
      mac: net.guestMac,
      xid: randomBytes(4).readUInt32BE(0),
      prl: [1, 3, 6, 12, 15, 26, 119, 121],
    });
    if (maxMessage !== undefined)
      req.options.set(Opt.MaxMessageSize, Buffer.from([maxMessage >> 8, maxMessage & 0xff]));
    const replies = await exchange(net, [{ data: encodeDhcpPacket(req), address: '10.0.2.255', port: 67 }], {
      expect: 1,
    });
    expect(replies).toHaveLength(1);
    const bytes = replies[0] ?? Buffer.alloc(0);
    expect(bytes.length + IP_UDP).toBeLessThanOrEqual(576);
    const reply = decodeDhcpPacket(bytes);
    expect(reply.xid).toBe(req.xid);
    expect(reply.options.get(Opt.MessageType)?.[0]).toBe(MessageType.Offer);
    expect(reply.options.get(Opt.DnsServers)?.length).toBe(12);
    expect(decodeDomainSearch(reply.options.get(Opt.DomainSearch) ?? Buffer.alloc(0)).length).toBeGreaterThan(0);
  });
});
