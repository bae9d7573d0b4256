// DHCPv6 through the real device-bound socket: a crafted client on the guest's link-local address multicasts to
// ff02::1:2 and must get the configured address back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PodNetwork, createPodNetwork } from './testing/pod-network.js';
import { type CliProcess, startCli } from './testing/cli-process.js';
import { exchange } from './testing/guest-exchange.js';
import { parseIPv6 } from './addr.js';
import {
  type V6Option,
  V6Opt,
  V6Type,
  decodeDhcpv6Message,
  decodeIaNa,
  encodeDhcpv6Message,
  encodeIaNa,
  findV6,
} from './v6/message.js';

describe('DHCPv6 on the pod bridge', () => {
  let net: PodNetwork;
  let server: CliProcess;
  beforeAll(async () => {
    net = await createPodNetwork({ ipv6: true });
    server = await startCli(net.pod, [
      '--interface',
      'k6t-eth0',
      '--client-ipv6',
      'fd10:0:2::2/120',
      '--server-mac',
      '02:00:00:00:00:00',
      '--dns6',
      'fd00::10',
    ]);
  });
  afterAll(async () => {
    await server?.stop();
    await net?.remove();
  });

  const clientId = { code: V6Opt.ClientId, value: Buffer.from('00030001525400abcdef', 'hex') };
  const iaNa = { code: V6Opt.IaNa, value: encodeIaNa({ iaid: 42, t1: 0, t2: 0, options: [] }) };
  const send = async (msgType: number, transactionId: number, extra: V6Option[] = []) => {
    const data = encodeDhcpv6Message({ msgType, transactionId, options: [clientId, iaNa, ...extra] });
    const replies = await exchange(net, [{ data, address: 'ff02::1:2%eth0', port: 547 }], { family: 6, expect: 1 });
    expect(replies).toHaveLength(1);
    const reply = decodeDhcpv6Message(replies[0] ?? Buffer.alloc(0));
    expect(reply.transactionId).toBe(transactionId);
    return reply;
  };

  it('advertises, then replies to REQUEST with the guest address and DNS', async () => {
    const adv = await send(V6Type.Solicit, 0x101);
    expect(adv.msgType).toBe(V6Type.Advertise);
    const serverId = findV6(adv.options, V6Opt.ServerId);
    expect(serverId).toEqual(Buffer.from('00030001020000000000', 'hex'));
    const reply = await send(V6Type.Request, 0x102, [{ code: V6Opt.ServerId, value: serverId ?? Buffer.alloc(0) }]);
    expect(reply.msgType).toBe(V6Type.Reply);
    const ia = decodeIaNa(findV6(reply.options, V6Opt.IaNa) ?? Buffer.alloc(0));
    expect(ia.iaid).toBe(42);
    expect(findV6(ia.options, V6Opt.IaAddr)?.subarray(0, 16)).toEqual(parseIPv6('fd10:0:2::2'));
    expect(findV6(reply.options, V6Opt.DnsServers)).toEqual(parseIPv6('fd00::10'));
  });

  it('replies at once to a rapid-commit SOLICIT', async () => {
    const reply = await send(V6Type.Solicit, 0x201, [{ code: V6Opt.RapidCommit, value: Buffer.alloc(0) }]);
    expect(reply.msgType).toBe(V6Type.Reply);
    expect(findV6(reply.options, V6Opt.RapidCommit)).toBeDefined();
  });
});
