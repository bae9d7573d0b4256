// Step 3 of SyncVMI against the in-memory connection: an existing domain is used as it is; a missing one gets
// the preStartHook (network phase 2, storage) and is defined; a failing lookup or define changes nothing after it.
// A config drive is written again after define with the tagged devices; if that fails, the domain is undefined.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeConnection } from '../../testing/fake-connection.js';
import { vmiJson } from '../../testing/handler-standin.js';
import { testSyncEnv, type TestSyncEnv } from '../../testing/sync-env.js';
import { parseVmiRequest, type VmiView } from '../../vmi.js';
import { lookupOrDefine } from './lookup-or-define.js';

let root: string;
let conn: FakeConnection;
let env: TestSyncEnv;
let vmi: VmiView;
let xml: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vlt-launcher-define-'));
  conn = await FakeConnection.open();
  env = testSyncEnv(conn, root);
  vmi = parseVmiRequest(vmiJson('a'));
  xml = `<domain type='qemu'><name>${vmi.domainName}</name></domain>`;
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('lookupOrDefine', () => {
  it('defines a missing domain after the network phase, with the VMI UID and grace period in the metadata', async () => {
    const dom = await lookupOrDefine(env, vmi, xml);
    expect(dom.name).toBe('default_a');
    expect(conn.domain('default_a')?.xml).toBe(xml);
    expect(env.networkPrepared).toEqual(['a']);
    expect(env.metadata.get()).toEqual({ UID: 'uid-a', GracePeriod: { DeletionGracePeriodSeconds: 5 } });
    // QEMU binds the VMI's serial and VNC sockets in this directory.
    expect((await stat(join(env.paths.privateDir, 'uid-a'))).isDirectory()).toBe(true);
  });

  it('returns an existing domain without the preStartHook or a new definition', async () => {
    const existing = await conn.defineXML(xml);
    conn.calls.length = 0;
    expect(await lookupOrDefine(env, vmi, '<domain><name>default_a</name><changed/></domain>')).toBe(existing);
    expect(conn.calls).toEqual(['lookupDomainByName']);
    expect(existing.xml).toBe(xml);
    expect(env.networkPrepared).toEqual([]);
    expect(env.metadata.get().UID).toBe('');
  });

  it('passes on a lookup error other than NO_DOMAIN and defines nothing', async () => {
    conn.failNext('lookupDomainByName', 'INTERNAL_ERROR');
    await expect(lookupOrDefine(env, vmi, xml)).rejects.toMatchObject({ codeName: 'INTERNAL_ERROR' });
    expect(conn.calls).toEqual(['lookupDomainByName']);
    expect(env.networkPrepared).toEqual([]);
  });

  it('passes on a failed define and leaves the metadata as it was', async () => {
    conn.failNext('defineXML', 'XML_ERROR');
    await expect(lookupOrDefine(env, vmi, xml)).rejects.toMatchObject({ codeName: 'XML_ERROR' });
    expect(conn.domain('default_a')).toBeUndefined();
    expect(env.metadata.get().UID).toBe('');
  });

  describe('with a config drive and a tagged NIC', () => {
    const tagged = () =>
      parseVmiRequest(
        vmiJson('a', {
          volumes: [{ name: 'cfg', cloudInitConfigDrive: { userData: '#cloud-config\n' } }],
          spec: {
            domain: {
              resources: { requests: { memory: '64Mi' } },
              devices: {
                disks: [{ name: 'cfg', disk: { bus: 'virtio' } }],
                interfaces: [{ name: 'blue', masquerade: {}, tag: 'uplink' }],
              },
            },
            networks: [{ name: 'blue', pod: {} }],
          },
        }),
      );
    const nic = (address: string) =>
      `<interface type='ethernet'><mac address='02:00:00:00:00:01'/><alias name='ua-blue'/>${address}</interface>`;
    const domainWith = (device: string) =>
      `<domain type='qemu'><name>default_a</name><devices>${device}</devices></domain>`;
    const metaData = () => {
      const iso = join(env.paths.ephemeralDiskDir, 'cloud-init-data/default/a/configdrive.iso');
      const text = execFileSync('isoinfo', ['-R', '-i', iso, '-x', '/openstack/latest/meta_data.json']).toString();
      return JSON.parse(text) as Record<string, unknown>;
    };

    it('writes the drive again after define, listing the NIC at its address in the defined domain', async () => {
      const pci = "<address type='pci' domain='0x0000' bus='0x01' slot='0x00' function='0x0'/>";
      await lookupOrDefine(env, tagged(), domainWith(nic(pci)));
      expect(metaData()['devices']).toEqual([
        { type: 'nic', bus: 'pci', address: '0000:01:00.0', mac: '02:00:00:00:00:01', tags: ['uplink'] },
      ]);
    });

    it('undefines the domain and leaves the metadata when the tagged NIC has no PCI address', async () => {
      await expect(lookupOrDefine(env, tagged(), domainWith(nic('')))).rejects.toMatchObject({
        name: 'DeviceMetadataError',
        field: 'spec.domain.devices.interfaces[blue].tag',
      });
      expect(conn.domain('default_a')).toBeUndefined();
      expect(env.metadata.get().UID).toBe('');
    });
  });
});
