import { describe, expect, it } from 'vitest';
import { DhcpV4Config } from '@virt-launcher/contracts';
import { createLogger, silentLogger } from '@virt-launcher/shared';
import { prepareV4 } from './prepare.js';
import { v4Handler } from './handler.js';
import { MessageType as T } from './options.js';
import { type RequestSpec, clientBytes } from '../testing/requests.js';

const MAC = '52:54:00:00:00:07';
const p = prepareV4(
  DhcpV4Config.fromPartial({
    interfaceName: 'k6t-eth0',
    serverIp: '10.0.2.1',
    clientIpCidr: '10.0.2.2/24',
    clientMac: MAC,
    router: '10.0.2.1',
  }),
  silentLogger,
);

/** The level and message of each line one request makes, at debug level. */
function linesFor(spec: Omit<RequestSpec, 'mac'>): Array<{ level: string; msg: string; mac?: string }> {
  const lines: Array<{ level: string; msg: string; mac?: string }> = [];
  const logger = createLogger({ component: 'virt-dhcp', level: 'debug', write: (l) => lines.push(JSON.parse(l)) });
  const handle = v4Handler(p, logger, () => {}, { received: 0, replied: 0, ignored: 0, malformed: 0 });
  handle(clientBytes({ ...spec, mac: MAC }), { address: '0.0.0.0', port: 68, scopeId: 0 });
  return lines.map(({ level, msg, mac }) => ({ level, msg, mac }));
}

describe('what a reply logs', () => {
  it('an OFFER and a renewal are debug lines, as KubeVirt logs each packet only at verbosity 4', () => {
    expect(linesFor({ type: T.Discover })).toEqual([{ level: 'debug', msg: 'sent DHCPOFFER', mac: MAC }]);
    expect(linesFor({ type: T.Request, ciaddr: '10.0.2.2' })).toEqual([
      { level: 'debug', msg: 'sent DHCPACK', mac: MAC },
    ]);
  });

  it('the ACK that starts a binding is an info line, whether selecting or rebooting', () => {
    const selecting = { type: T.Request, serverId: '10.0.2.1', requested: '10.0.2.2' };
    expect(linesFor(selecting)).toEqual([{ level: 'info', msg: 'sent DHCPACK', mac: MAC }]);
    expect(linesFor({ type: T.Request, requested: '10.0.2.2' })).toEqual([
      { level: 'info', msg: 'sent DHCPACK', mac: MAC },
    ]);
  });

  it('a NAK is an info line with its reason', () => {
    const lines = linesFor({ type: T.Request, requested: '10.0.2.99' });
    expect(lines).toEqual([{ level: 'info', msg: 'sent DHCPNAK', mac: MAC }]);
  });

  it('writes nothing at the default level for an OFFER', () => {
    const lines: string[] = [];
    const logger = createLogger({ component: 'virt-dhcp', write: (l) => lines.push(l) });
    const sent: Buffer[] = [];
    v4Handler(p, logger, (d) => sent.push(d), { received: 0, replied: 0, ignored: 0, malformed: 0 })(
      clientBytes({ type: T.Discover, mac: MAC }),
      { address: '0.0.0.0', port: 68, scopeId: 0 },
    );
    expect(sent).toHaveLength(1);
    expect(lines).toEqual([]);
  });
});
