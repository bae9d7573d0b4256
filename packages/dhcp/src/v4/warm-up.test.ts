import { describe, expect, it } from 'vitest';
import { DhcpV4Config } from '@virt-launcher/contracts';
import { silentLogger } from '@virt-launcher/shared';
import { prepareV4 } from './prepare.js';
import { v4Handler } from './handler.js';
import { warmUpV4 } from './warm-up.js';
import { clientBytes } from '../testing/requests.js';
import { decodeDhcpPacket } from './packet.js';
import { MessageType, Opt } from './options.js';

describe('warm-up and handler', () => {
  const p = prepareV4(
    DhcpV4Config.fromPartial({
      interfaceName: 'k6t-eth0',
      serverIp: '10.0.2.1',
      clientIpCidr: '10.0.2.2/24',
      clientMac: '52:54:00:00:00:07',
    }),
    silentLogger,
  );

  it('leaves no trace and the handler still answers afterwards', () => {
    warmUpV4(p);
    const sent: Buffer[] = [];
    const stats = { received: 0, replied: 0, ignored: 0, malformed: 0 };
    const handle = v4Handler(p, silentLogger, (d) => sent.push(d), stats);
    handle(clientBytes({ type: MessageType.Discover, mac: '52:54:00:00:00:07', xid: 9 }), {
      address: '0.0.0.0',
      port: 68,
      scopeId: 0,
    });
    handle(Buffer.from('garbage'), { address: '0.0.0.0', port: 68, scopeId: 0 });
    handle(clientBytes({ type: MessageType.Discover, mac: '52:54:00:00:00:08' }), {
      address: '0.0.0.0',
      port: 68,
      scopeId: 0,
    });
    expect(stats).toEqual({ received: 3, replied: 1, ignored: 1, malformed: 1 });
    expect(decodeDhcpPacket(sent[0] ?? Buffer.alloc(0)).options.get(Opt.MessageType)?.[0]).toBe(MessageType.Offer);
  });
});
