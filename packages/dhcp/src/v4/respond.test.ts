import { describe, expect, it } from 'vitest';
import { DEFAULT_LEASE_SECONDS, DhcpV4Config } from '@virt-launcher/contracts';
import { DhcpConfigError } from '../errors.js';
import { type Logger, silentLogger } from '@virt-launcher/shared';
import { clientPacket } from '../testing/requests.js';
import { MessageType as T, Opt } from './options.js';
import { prepareV4 } from './prepare.js';
import { type Decision, respondV4 } from './respond.js';
import { decodeDomainSearch } from './domain-search.js';

const MAC = '52:54:00:aa:bb:cc';
const cfg = (over: Partial<DhcpV4Config> = {}): DhcpV4Config =>
  DhcpV4Config.fromPartial({
    interfaceName: 'k6t-eth0',
    serverIp: '10.0.2.1',
    clientIpCidr: '10.0.2.2/24',
    router: '10.0.2.1',
    dnsServers: ['10.96.0.10'],
    mtu: 1500,
    ...over,
  });
const fromClient = { address: '0.0.0.0', port: 68 };

function replied(d: Decision): Extract<Decision, { kind: 'reply' }> {
  if (d.kind !== 'reply') throw new Error(`expected a reply, got ${JSON.stringify(d)}`);
  return d;
}
const typeOf = (d: Decision): number | undefined => replied(d).packet.options.get(Opt.MessageType)?.[0];

describe('respondV4', () => {
  const p = prepareV4(cfg(), silentLogger);

  it('offers on DISCOVER with 53, 54, 51 first and the configured options after', () => {
    const d = replied(respondV4(p, clientPacket({ type: T.Discover, mac: MAC, xid: 7 }), fromClient));
    expect(d.packet.options.get(Opt.MessageType)?.[0]).toBe(T.Offer);
    expect([...d.packet.options.keys()]).toEqual([53, 54, 51, 1, 3, 6, 26]);
    expect(d.packet.yiaddr).toBe('10.0.2.2');
    expect(d.packet.xid).toBe(7);
    expect(d.packet.options.get(Opt.LeaseTime)?.readUInt32BE(0)).toBe(DEFAULT_LEASE_SECONDS);
    expect(d.to).toEqual({ address: '255.255.255.255', port: 68 });
  });

  it('ACKs the three REQUEST states when they name the guest address and this server', () => {
    const selecting = clientPacket({ type: T.Request, mac: MAC, requested: '10.0.2.2', serverId: '10.0.2.1' });
    const reboot = clientPacket({ type: T.Request, mac: MAC, requested: '10.0.2.2' });
    const renewing = clientPacket({ type: T.Request, mac: MAC, ciaddr: '10.0.2.2' });
    for (const req of [selecting, reboot, renewing]) expect(typeOf(respondV4(p, req, fromClient))).toBe(T.Ack);
    const renewFrom = { address: '10.0.2.2', port: 68 };
    expect(replied(respondV4(p, renewing, renewFrom)).to).toEqual(renewFrom);
  });

  it.each([
    ['wrong requested IP in SELECTING', { requested: '10.0.2.3', serverId: '10.0.2.1' }],
    ['wrong requested IP in INIT-REBOOT', { requested: '192.168.0.5' }],
    ['wrong ciaddr in RENEWING', { ciaddr: '10.0.2.3' }],
  ])('NAKs %s, broadcast, without lease or config options', (_name, spec) => {
    const d = replied(respondV4(p, clientPacket({ type: T.Request, mac: MAC, ...spec }), fromClient));
    expect(d.packet.options.get(Opt.MessageType)?.[0]).toBe(T.Nak);
    expect(d.packet.yiaddr).toBe('0.0.0.0');
    expect(d.packet.options.has(Opt.LeaseTime)).toBe(false);
    expect(d.packet.options.has(Opt.Router)).toBe(false);
    expect(d.to.address).toBe('255.255.255.255');
  });

  it('stays silent when a SELECTING request names another server (RFC 2131 §4.3.2)', () => {
    for (const requested of ['10.0.2.2', '10.0.2.3']) {
      const req = clientPacket({ type: T.Request, mac: MAC, requested, serverId: '10.0.2.99' });
      const d = respondV4(p, req, fromClient);
      expect(d).toMatchObject({ kind: 'note', msg: 'client chose another DHCP server' });
      expect(d.kind === 'note' && d.fields.serverId).toBe('10.0.2.99');
    }
  });

  it('answers INFORM without a lease, unicast to ciaddr', () => {
    const d = replied(respondV4(p, clientPacket({ type: T.Inform, mac: MAC, ciaddr: '10.0.2.2' }), fromClient));
    expect(typeOf(d)).toBe(T.Ack);
    expect(d.packet.yiaddr).toBe('0.0.0.0');
    expect(d.packet.options.has(Opt.LeaseTime)).toBe(false);
    expect(d.to).toEqual({ address: '10.0.2.2', port: 68 });
  });

  it('sends through a relay to giaddr:67, NAKs with the broadcast flag', () => {
    const offer = replied(respondV4(p, clientPacket({ type: T.Discover, mac: MAC, giaddr: '10.9.0.1' }), fromClient));
    expect(offer.to).toEqual({ address: '10.9.0.1', port: 67 });
    const req = clientPacket({ type: T.Request, mac: MAC, giaddr: '10.9.0.1', requested: '1.1.1.1' });
    const nak = replied(respondV4(p, req, fromClient));
    expect(nak.packet.flags & 0x8000).toBe(0x8000);
    expect(nak.to).toEqual({ address: '10.9.0.1', port: 67 });
  });

  it('logs RELEASE and DECLINE without replying; ignores server messages and odd requests', () => {
    expect(respondV4(p, clientPacket({ type: T.Release, mac: MAC }), fromClient).kind).toBe('note');
    expect(respondV4(p, clientPacket({ type: T.Decline, mac: MAC }), fromClient).kind).toBe('note');
    for (const type of [T.Offer, T.Ack, T.Nak, 0, 9, 200]) {
      expect(respondV4(p, clientPacket({ type, mac: MAC }), fromClient).kind).toBe('ignore');
    }
    expect(respondV4(p, clientPacket({ type: T.Request, mac: MAC }), fromClient).kind).toBe('ignore');
    expect(respondV4(p, { ...clientPacket({ type: T.Discover, mac: MAC }), op: 2 }, fromClient).kind).toBe('ignore');
  });

  it('answers only the configured MAC when one is set', () => {
    const only = prepareV4(cfg({ clientMac: MAC.toUpperCase() }), silentLogger);
    expect(respondV4(only, clientPacket({ type: T.Discover, mac: MAC }), fromClient).kind).toBe('reply');
    expect(respondV4(only, clientPacket({ type: T.Discover, mac: '52:54:00:aa:bb:cd' }), fromClient).kind).toBe(
      'ignore',
    );
  });

  it('fits a reply over 576 bytes by overload, then by dropping unrequested options, and reports it', () => {
    const big = prepareV4(cfg({ privateOptions: [{ code: 250, value: Buffer.alloc(400) }] }), silentLogger);
    const d = replied(respondV4(big, clientPacket({ type: T.Discover, mac: MAC, prl: [1, 3, 26] }), fromClient));
    expect(d.packet.options.has(250)).toBe(false);
    expect(d.packet.options.has(26)).toBe(true);
    expect(d.fit).toEqual({ limit: 576, inFile: [], inSname: [], dropped: [250] });
    const roomy = clientPacket({ type: T.Discover, mac: MAC });
    roomy.options.set(Opt.MaxMessageSize, Buffer.from([0x05, 0xdc]));
    const whole = replied(respondV4(big, roomy, fromClient));
    expect(whole.packet.options.get(250)?.length).toBe(400);
    expect(whole.fit).toBeUndefined();
  });

  it('keeps NAKs and small replies in the options field', () => {
    const d = replied(respondV4(p, clientPacket({ type: T.Request, mac: MAC, requested: '10.0.2.9' }), fromClient));
    expect(d.packet.fileOptions?.size ?? 0).toBe(0);
    expect(d.packet.snameOptions?.size ?? 0).toBe(0);
    expect(d.fit).toBeUndefined();
  });
});

describe('prepareV4', () => {
  it('drops invalid search domains with a warning and derives option 15 from the longest', () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warning: (msg, f) => warnings.push(`${msg} ${String(f?.domain)}`) };
    const p = prepareV4(cfg({ searchDomains: ['ns.svc.cluster.local', 'in valid', 'cluster.local'] }), logger);
    expect(decodeDomainSearch(p.options.get(Opt.DomainSearch) ?? Buffer.alloc(0))).toEqual([
      'ns.svc.cluster.local',
      'cluster.local',
    ]);
    expect(p.options.get(Opt.DomainName)?.toString()).toBe('ns.svc.cluster.local');
    expect(warnings).toEqual(['dropping invalid search domain in valid']);
  });

  it('adds the router as the 121 default route, encodes 42/66/67 and keeps only 224..254 private codes', () => {
    const p = prepareV4(
      cfg({
        routes: [{ destination: '192.168.1.0/24', gateway: '10.0.2.1' }],
        ntpServers: ['10.0.0.5'],
        tftpServerName: 'tftp.local',
        bootfileName: 'pxelinux.0',
        privateOptions: [
          { code: 224, value: Buffer.from('a') },
          { code: 200, value: Buffer.from('b') },
        ],
      }),
      silentLogger,
    );
    expect([...(p.options.get(Opt.ClasslessRoutes) ?? [])]).toEqual([24, 192, 168, 1, 10, 0, 2, 1, 0, 10, 0, 2, 1]);
    expect([...(p.options.get(Opt.NtpServers) ?? [])]).toEqual([10, 0, 0, 5]);
    expect(p.options.get(Opt.TftpServerName)?.toString()).toBe('tftp.local');
    expect(p.options.get(Opt.BootfileName)?.toString()).toBe('pxelinux.0');
    expect(p.options.has(224)).toBe(true);
    expect(p.options.has(200)).toBe(false);
  });

  it.each([
    [{ serverIp: '10.0.2' }, 'v4.serverIp'],
    [{ clientIpCidr: '10.0.2.2' }, 'v4.clientIpCidr'],
    [{ clientIpCidr: '10.0.2.2/31' }, 'v4.clientIpCidr'],
    [{ clientMac: 'zz' }, 'v4.clientMac'],
    [{ dnsServers: ['::1'] }, 'v4.dnsServers'],
    [{ ntpServers: ['ntp.example'] }, 'v4.ntpServers'],
    [{ routes: [{ destination: 'x', gateway: '' }] }, 'v4.routes'],
    [{ mtu: 20 }, 'v4.mtu'],
    [{ interfaceName: '' }, 'v4.interfaceName'],
  ])('rejects %j as a config error on %s', (over, field) => {
    expect(() => prepareV4(cfg(over as Partial<DhcpV4Config>), silentLogger)).toThrow(
      expect.objectContaining({ constructor: DhcpConfigError, field }),
    );
  });
});
