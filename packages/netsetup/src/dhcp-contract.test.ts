// GuestDhcpConfig must decode as @virt-launcher/dhcp's ServerConfig. We may not import that package, so its
// shape is written down here from packages/dhcp/proto/virtlauncher/dhcp/v1/dhcp.proto and compared with our
// own descriptor as buf compiles it: field names, numbers, types, labels and the message each field refers to.
import { fileURLToPath } from 'node:url';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { GuestDhcpConfig } from './gen/virtlauncher/netsetup/v1/netsetup.js';

type Kind = 'string' | 'uint32' | 'bytes' | `message:${string}`;
interface Field {
  name: string;
  number: number;
  kind: Kind;
  repeated: boolean;
}
const f = (name: string, number: number, kind: Kind, repeated = false): Field => ({ name, number, kind, repeated });

/** dhcp.proto's messages, keyed by the name of our mirror of each. */
const DHCP_SERVER_CONFIG: Record<string, Field[]> = {
  GuestDhcpConfig: [f('v4', 1, 'message:GuestDhcpV4Config'), f('v6', 2, 'message:GuestDhcpV6Config')],
  GuestRoute: [f('destination', 1, 'string'), f('gateway', 2, 'string')],
  GuestPrivateOption: [f('code', 1, 'uint32'), f('value', 2, 'bytes')],
  GuestDhcpV4Config: [
    f('interface_name', 1, 'string'),
    f('server_ip', 2, 'string'),
    f('client_mac', 3, 'string'),
    f('client_ip_cidr', 4, 'string'),
    f('router', 5, 'string'),
    f('dns_servers', 6, 'string', true),
    f('search_domains', 7, 'string', true),
    f('domain_name', 8, 'string'),
    f('mtu', 9, 'uint32'),
    f('hostname', 10, 'string'),
    f('routes', 11, 'message:GuestRoute', true),
    f('lease_seconds', 12, 'uint32'),
    f('ntp_servers', 13, 'string', true),
    f('tftp_server_name', 14, 'string'),
    f('bootfile_name', 15, 'string'),
    f('private_options', 16, 'message:GuestPrivateOption', true),
  ],
  GuestDhcpV6Config: [
    f('interface_name', 1, 'string'),
    f('client_ip_cidr', 2, 'string'),
    f('server_mac', 3, 'string'),
    f('dns_servers', 4, 'string', true),
    f('lease_seconds', 5, 'uint32'),
  ],
};

const TYPE_NAMES: Record<number, string> = { 9: 'string', 13: 'uint32', 12: 'bytes' };
const TYPE_MESSAGE = 11;
const LABEL_REPEATED = 3;
const PACKAGE = 'virtlauncher.netsetup.v1';

let ours: Map<string, Field[]>;

beforeAll(async () => {
  const buf = fileURLToPath(new URL('../../../node_modules/.bin/buf', import.meta.url));
  const cwd = fileURLToPath(new URL('..', import.meta.url));
  const { stdout } = await execa(buf, ['build', '-o', '-#format=binpb'], { cwd, encoding: 'buffer' });
  const set = fromBinary(FileDescriptorSetSchema, stdout);
  const file = set.file.find((x) => x.package === PACKAGE)!;
  ours = new Map(
    file.messageType.map((m) => [
      m.name,
      m.field.map((x) => ({
        name: x.name,
        number: x.number,
        kind: (x.type === TYPE_MESSAGE
          ? `message:${x.typeName.replace(`.${PACKAGE}.`, '')}`
          : (TYPE_NAMES[x.type] ?? `type ${x.type}`)) as Kind,
        repeated: x.label === LABEL_REPEATED,
      })),
    ]),
  );
});

describe('GuestDhcpConfig mirrors dhcp ServerConfig', () => {
  for (const [message, fields] of Object.entries(DHCP_SERVER_CONFIG)) {
    it(`${message} has exactly dhcp's fields`, () => {
      expect(ours.get(message)).toEqual(fields);
    });
  }

  it('encodes every field with the wire type dhcp expects', () => {
    const bytes = GuestDhcpConfig.encode(
      GuestDhcpConfig.fromPartial({
        v4: {
          interfaceName: 'k6t-eth0',
          mtu: 1400,
          dnsServers: ['10.96.0.10'],
          routes: [{ destination: '0.0.0.0/0', gateway: '10.0.2.1' }],
          privateOptions: [{ code: 240, value: Buffer.from([1]) }],
          leaseSeconds: 86313600,
        },
        v6: { clientIpCidr: 'fd10:0:2::2/120' },
      }),
    ).finish();
    // Top level: field 1 and 2, both length-delimited (wire type 2).
    expect(bytes[0]).toBe((1 << 3) | 2);
    expect(GuestDhcpConfig.decode(bytes).v4!.routes[0]!.gateway).toBe('10.0.2.1');
  });
});
