// The storage steps on a real filesystem under a temporary run root: a filesystem claim's disk.img sized as
// KubeVirt's host-disk logic sizes it, refusals that name the field and leave nothing behind, the ConfigDrive
// meta-data carrying the firmware UUID, and the firmware UUID read from a converted domain.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEphemeralDisk } from './adapters/ephemeral-disk.js';
import type { SyncEnv } from './domain/sync/env.js';
import { prepareCloudInit } from './domain/sync/storage/cloud-init.js';
import { prepareStorage } from './domain/sync/prepare-storage.js';
import { preparePvcVolume } from './domain/sync/storage/pvc.js';
import { firmwareUuidOf, readStorageSpec } from './domain/sync/storage/spec.js';
import { InvalidRequestError } from './errors.js';
import { resolvePaths } from './paths.js';
import { parseVmiRequest } from './vmi.js';

const MIB = 1024 * 1024;
let root = '';
let env: SyncEnv;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vlt-launcher-pvc-'));
  const paths = resolvePaths({
    runRoot: root,
    uid: 'u1',
    kubevirtShareDir: '/var/run/kubevirt',
    ephemeralDiskDir: '/var/run/kubevirt-ephemeral-disks',
    containerDiskDir: '/var/run/kubevirt/container-disks',
    hotplugDiskDir: '/var/run/kubevirt/hotplug-disks',
  });
  // Only the paths are read by these steps; the rest of the environment belongs to other steps.
  env = { paths } as SyncEnv;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function vmiWith(volumes: unknown[], status: unknown[] = [], spec: object = {}) {
  const doc = {
    metadata: { name: 'vm1', namespace: 'ns1', uid: 'u1' },
    spec: { domain: { devices: {} }, volumes, ...spec },
    status: { volumeStatus: status },
  };
  return parseVmiRequest(Buffer.from(JSON.stringify(doc)));
}

const pvcStatus = (name: string, info: object) => ({ name, persistentVolumeClaimInfo: info });

async function prepare(vmi: ReturnType<typeof vmiWith>, xml = '') {
  const eph = await loadEphemeralDisk();
  const spec = readStorageSpec(vmi, xml);
  for (const [i, v] of vmi.volumes.entries()) await preparePvcVolume(env, eph, v, i, spec);
}

describe('filesystem claim disk.img', () => {
  beforeEach(async () => {
    await mkdir(join(env.paths.privateDir, 'vmi-disks', 'data'), { recursive: true });
  });
  const img = () => join(env.paths.privateDir, 'vmi-disks', 'data', 'disk.img');

  it('takes the request when it is larger than the capacity, rounded down to 1 MiB', async () => {
    const status = [pvcStatus('data', { capacity: { storage: '64Mi' }, requests: { storage: '96.5Mi' } })];
    await prepare(vmiWith([{ name: 'data', persistentVolumeClaim: { claimName: 'c' } }], status));
    expect((await stat(img())).size).toBe(96 * MIB);
    // Sparse: nothing is written.
    expect((await stat(img())).blocks).toBeLessThan(64);
  });

  it('takes the capacity otherwise, and keeps an existing disk.img as it is', async () => {
    const status = [pvcStatus('data', { capacity: { storage: '32Mi' }, requests: { storage: '16Mi' } })];
    const vmi = vmiWith([{ name: 'data', dataVolume: { name: 'dv' } }], status);
    await prepare(vmi);
    expect((await stat(img())).size).toBe(32 * MIB);
    await writeFile(img(), 'guest data');
    await prepare(vmi);
    expect(await readFile(img(), 'utf8')).toBe('guest data');
  });

  it('is refused, naming the field, when neither the file nor the claim size is known', async () => {
    const err = await prepare(vmiWith([{ name: 'data', persistentVolumeClaim: { claimName: 'c' } }])).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).field).toBe('spec.volumes[0]');
    expect(await readdir(join(env.paths.privateDir, 'vmi-disks', 'data'))).toEqual([]);
  });
});

describe('refusals leave nothing behind', () => {
  it('a Block claim without its device node', async () => {
    const status = [pvcStatus('raw', { capacity: { storage: '8Mi' }, volumeMode: 'Block' })];
    const err = await prepare(vmiWith([{ name: 'raw', persistentVolumeClaim: { claimName: 'c' } }], status)).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as Error).message).toContain(`no block device at ${join(root, 'dev/raw')}`);
    await expect(stat(join(env.paths.privateDir, 'vmi-disks'))).rejects.toThrow(/ENOENT/);
  });

  it('an ephemeral claim without disk.img: never made, no overlay', async () => {
    const status = [pvcStatus('eph', { capacity: { storage: '8Mi' } })];
    const err = await prepare(
      vmiWith([{ name: 'eph', ephemeral: { persistentVolumeClaim: { claimName: 'c' } } }], status),
    ).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/ephemeral volume eph has no .*disk\.img/);
    await expect(stat(join(env.paths.diskDataDir, 'eph'))).rejects.toThrow(/ENOENT/);
  });
});

describe('firmware UUID', () => {
  const xml = `<domain><uuid>aaaa</uuid><sysinfo type="smbios"><system><entry name="manufacturer">KubeVirt</entry>
    <entry name="uuid">0f3b7a52-9d16-4a0e-8f71-1c5a4a1b2c3d</entry></system></sysinfo></domain>`;

  it('is the SMBIOS system uuid of the domain', () => {
    expect(firmwareUuidOf(xml)).toBe('0f3b7a52-9d16-4a0e-8f71-1c5a4a1b2c3d');
  });

  it('is ConfigDrive meta-data uuid; its instance_id stays <name>.<namespace>', async () => {
    const vmi = vmiWith([{ name: 'ci', cloudInitConfigDrive: { userData: '#cloud-config\n' } }]);
    await prepareCloudInit(env, await loadEphemeralDisk(), vmi, vmi.volumes[0]!, readStorageSpec(vmi, xml));
    const iso = join(env.paths.cloudInitDir, 'ns1', 'vm1', 'configdrive.iso');
    const meta = JSON.parse(
      execFileSync('isoinfo', ['-R', '-i', iso, '-x', '/openstack/latest/meta_data.json']).toString(),
    ) as Record<string, unknown>;
    expect(meta['uuid']).toBe('0f3b7a52-9d16-4a0e-8f71-1c5a4a1b2c3d');
    expect(meta['instance_id']).toBe('vm1.ns1');
  });
});

describe('DiskOrCreate host disk', () => {
  it('is made in the pod mount of its directory, vmi-disks/<volume>/<base name>, where the domain names it', async () => {
    await mkdir(join(env.paths.privateDir, 'vmi-disks', 'hd'), { recursive: true });
    const vmi = vmiWith([
      { name: 'hd', hostDisk: { path: '/mnt/data/hd.img', type: 'DiskOrCreate', capacity: '8Mi' } },
    ]);
    expect(await prepareStorage(env, vmi, '<domain/>')).toBe('<domain/>');
    expect((await stat(join(env.paths.privateDir, 'vmi-disks', 'hd', 'hd.img'))).size).toBe(8 * MIB);
    await expect(stat(join(root, 'mnt'))).rejects.toThrow(/ENOENT/);
  });
});
