// The device metadata of a ConfigDrive (issue 17): tagged devices listed in openstack/latest/meta_data.json with
// KubeVirt's keys, read back out of the ISO the real tools wrote (genisoimage or xorriso, whichever is found).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractIso, scratchDir } from '../test/helpers.js';
import {
  CloudInitIsoRequest,
  CloudInitType,
  DeviceMetadata,
  InvalidRequestError,
  createCloudInitIso,
} from './index.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = scratchDir()));
afterEach(() => cleanup());

const device = (overrides: Partial<DeviceMetadata>): DeviceMetadata =>
  DeviceMetadata.fromPartial({ type: 'nic', bus: 'pci', address: '0000:01:00.0', tags: ['tag'], ...overrides });

async function metaDataOf(devices: DeviceMetadata[]): Promise<Record<string, unknown>> {
  const request = CloudInitIsoRequest.fromPartial({
    ephemeralDir: join(dir, 'eph'),
    namespace: 'default',
    name: 'tagged',
    type: CloudInitType.CLOUD_INIT_TYPE_CONFIGDRIVE,
    userData: '#cloud-config\n',
    metaData: { uuid: 'c0ffee00-0000-4000-8000-000000000001', devices },
  });
  const out = extractIso((await createCloudInitIso(request)).path, join(dir, 'out'));
  return JSON.parse(readFileSync(join(out, 'openstack/latest/meta_data.json'), 'utf8')) as Record<string, unknown>;
}

describe('ConfigDrive device metadata', () => {
  it('lists each tagged device with its type, bus, address, MAC and tags, in the order given', async () => {
    const meta = await metaDataOf([
      device({ address: '0000:01:00.0', mac: '02:00:00:aa:bb:cc', tags: ['uplink'] }),
      device({ type: 'hostdev', address: '0000:07:00.0', numaNode: 1, alignedCpus: [0, 2], tags: ['gpu'] }),
      device({ type: 'nic', address: '0000:08:00.0', numaNode: 0, tags: ['vf'] }),
    ]);
    expect(meta['devices']).toEqual([
      { type: 'nic', bus: 'pci', address: '0000:01:00.0', mac: '02:00:00:aa:bb:cc', tags: ['uplink'] },
      { type: 'hostdev', bus: 'pci', address: '0000:07:00.0', numaNode: 1, alignedCPUs: [0, 2], tags: ['gpu'] },
      // Node 0 is left out, as KubeVirt's document leaves it out.
      { type: 'nic', bus: 'pci', address: '0000:08:00.0', tags: ['vf'] },
    ]);
    // The rest of the document is unchanged by the devices.
    expect(meta['instance_id']).toBe('tagged.default');
    expect(meta['uuid']).toBe('c0ffee00-0000-4000-8000-000000000001');
  });

  it('has no devices key when nothing is tagged', async () => {
    expect(Object.keys(await metaDataOf([]))).not.toContain('devices');
  });

  it.each([
    ['type', device({ type: 'disk' })],
    ['address', device({ address: '01:00.0' })],
    ['address', device({ address: '' })],
    ['tags', device({ tags: [] })],
    ['tags', device({ tags: [''] })],
  ])('refuses a device whose %s the guest could not use, naming the field', async (field, bad) => {
    const err = await metaDataOf([device({}), bad]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).field).toBe(`meta_data.devices[1].${field}`);
  });
});
