// Runs the reply path on synthetic requests before the socket opens. V8 compiles functions lazily and optimises
// them only after many calls; without this the guest's first DISCOVER pays milliseconds of compilation, which is
// most of a lease's time on the server side. A few hundred rounds take a few tens of milliseconds at start-up.
// The requests come with and without a size limit (option 57), so the replies a guest's first DISCOVER and REQUEST
// get are already fitted and encoded (reply-template.ts): clients send either none, 576, or more than the MTU.
import { type DhcpPacket, encodeDhcpPacket } from './packet.js';
import { MessageType, Opt } from './options.js';
import type { PreparedV4 } from './prepare.js';
import { v4Handler } from './handler.js';
import { createLogger } from '@virt-launcher/shared';
import { parseIPv4 } from '../addr.js';

const ROUNDS = 150;

/** Option 57 of 65535: the reply limit is then the link MTU (fit.ts replyLimit). */
const NO_LIMIT = Buffer.from([0xff, 0xff]);

function synthetic(p: PreparedV4, type: number, xid: number, maxMessage: Buffer | undefined): DhcpPacket {
  const options = new Map<number, Buffer>([[Opt.MessageType, Buffer.from([type])]]);
  if (maxMessage) options.set(Opt.MaxMessageSize, maxMessage);
  if (type === MessageType.Request) {
    options.set(Opt.RequestedIp, parseIPv4(p.clientIp) ?? Buffer.alloc(4));
    options.set(Opt.ServerId, parseIPv4(p.serverIp) ?? Buffer.alloc(4));
  }
  options.set(Opt.ParameterRequestList, Buffer.from([1, 3, 6, 12, 15, 26, 119, 121]));
  return {
    op: 1,
    htype: 1,
    hlen: 6,
    hops: 0,
    xid,
    secs: 0,
    flags: 0,
    ciaddr: '0.0.0.0',
    yiaddr: '0.0.0.0',
    siaddr: '0.0.0.0',
    giaddr: '0.0.0.0',
    chaddr: p.clientMac ?? Buffer.from([2, 0, 0, 0, 0, 1]),
    sname: '',
    file: '',
    options,
  };
}

/** A DISCOVER and a SELECTING REQUEST from the configured client, each without and with a size limit. */
export function warmUpRequests(p: PreparedV4): Buffer[] {
  return [undefined, NO_LIMIT].flatMap((limit) =>
    [MessageType.Discover, MessageType.Request].map((t) => encodeDhcpPacket(synthetic(p, t, t, limit))),
  );
}

/** Drives the real handler, logger formatting included, with replies and log lines thrown away. */
export function warmUpV4(p: PreparedV4): void {
  const wire = warmUpRequests(p);
  const stats = { received: 0, replied: 0, ignored: 0, malformed: 0 };
  const handle = v4Handler(p, createLogger({ component: 'virt-dhcp', write: () => {} }), () => {}, stats);
  const from = { address: '0.0.0.0', port: 68, scopeId: 0 };
  for (let i = 0; i < ROUNDS; i++) for (const bytes of wire) handle(bytes, from);
}
