import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractIso, isoFiles, isoVolumeId, scratchDir } from '../test/helpers.js';
import {
  CloudInitType,
  InvalidIsoLabelError,
  InvalidObjectNameError,
  MissingCloudInitDataError,
  SysprepUnattendMissingError,
  createCloudInitIso,
  createConfigIso,
  createSysprepIso,
  type CloudInitIsoRequest,
  type IsoTool,
} from './index.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = scratchDir()));
afterEach(() => {
  delete process.env['VIRT_EPHEMERAL_DISK_ISO_TOOL'];
  cleanup();
});

const USER_DATA = '#cloud-config\npassword: fedora\nchpasswd: { expire: False }\n';
const NETWORK = 'version: 2\nethernets:\n  eth0:\n    dhcp4: true\n';

function request(overrides: Partial<CloudInitIsoRequest> = {}): CloudInitIsoRequest {
  return {
    ephemeralDir: join(dir, 'eph'),
    namespace: 'default',
    name: 'testvm.example',
    type: CloudInitType.CLOUD_INIT_TYPE_NOCLOUD,
    userData: USER_DATA,
    userDataBase64: '',
    userDataSecretDir: '',
    networkData: '',
    networkDataBase64: '',
    networkDataSecretDir: '',
    metaData: undefined,
    ...overrides,
  };
}

describe.each<IsoTool>(['genisoimage', 'xorriso'])('cloud-init ISO with %s', (tool) => {
  beforeEach(() => {
    process.env['VIRT_EPHEMERAL_DISK_ISO_TOOL'] = tool;
  });

  it('builds a NoCloud ISO labelled cidata that reads back byte for byte', async () => {
    const result = await createCloudInitIso(request({ networkData: NETWORK }));
    const vmDir = join(dir, 'eph', 'cloud-init-data', 'default', 'testvm.example');
    expect(result.path).toBe(join(vmDir, 'noCloud.iso'));
    expect(result.label).toBe('cidata');
    expect(isoVolumeId(result.path)).toBe('cidata');
    expect(isoFiles(result.path)).toEqual(['/meta-data', '/network-config', '/user-data']);
    const out = extractIso(result.path, join(dir, 'out'));
    expect(readFileSync(join(out, 'user-data'), 'utf8')).toBe(USER_DATA);
    expect(readFileSync(join(out, 'network-config'), 'utf8')).toBe(NETWORK);
    expect(JSON.parse(readFileSync(join(out, 'meta-data'), 'utf8'))).toEqual({
      'instance-id': 'testvm.example.default',
      'local-hostname': 'testvm',
    });
    // Only the ISO remains: the staged files (possibly secrets) are gone.
    expect(readdirSync(vmDir)).toEqual(['noCloud.iso']);
    expect(BigInt(readFileSync(result.path).length)).toBe(result.size);
  });

  it('builds a ConfigDrive ISO labelled config-2 in the OpenStack layout', async () => {
    const metaData = {
      instanceId: '',
      hostname: 'custom',
      instanceType: 'u1.small',
      uuid: '5d307ca9-b3ef-428c-8861-06e72d69f223',
      publicKeys: { '0': 'ssh-ed25519 AAAA test' },
      devices: [],
    };
    const result = await createCloudInitIso(
      request({ type: CloudInitType.CLOUD_INIT_TYPE_CONFIGDRIVE, networkData: NETWORK, metaData }),
    );
    expect(result.path.endsWith('/configdrive.iso')).toBe(true);
    expect(isoVolumeId(result.path)).toBe('config-2');
    const latest = '/openstack/latest';
    expect(isoFiles(result.path)).toEqual([
      `${latest}/meta_data.json`,
      `${latest}/network_data.json`,
      `${latest}/user_data`,
    ]);
    const out = extractIso(result.path, join(dir, 'out'));
    expect(readFileSync(join(out, latest, 'user_data'), 'utf8')).toBe(USER_DATA);
    expect(JSON.parse(readFileSync(join(out, latest, 'meta_data.json'), 'utf8'))).toEqual({
      instance_type: 'u1.small',
      instance_id: 'testvm.example.default',
      hostname: 'custom',
      uuid: '5d307ca9-b3ef-428c-8861-06e72d69f223',
      public_keys: { '0': 'ssh-ed25519 AAAA test' },
    });
  });
});

describe('cloud-init data sources', () => {
  it('decodes base64 and reads secret directories (userData spelling)', async () => {
    const secret = join(dir, 'secret');
    mkdirSync(secret);
    writeFileSync(join(secret, 'networkData'), NETWORK);
    const result = await createCloudInitIso(
      request({
        userData: '',
        userDataBase64: Buffer.from(USER_DATA).toString('base64'),
        networkDataSecretDir: secret,
      }),
    );
    const out = extractIso(result.path, join(dir, 'out'));
    expect(readFileSync(join(out, 'user-data'), 'utf8')).toBe(USER_DATA);
    expect(readFileSync(join(out, 'network-config'), 'utf8')).toBe(NETWORK);
  });

  it('names what is missing', async () => {
    await expect(createCloudInitIso(request({ userData: '' }))).rejects.toThrow(MissingCloudInitDataError);
    const empty = join(dir, 'empty-secret');
    mkdirSync(empty);
    await expect(createCloudInitIso(request({ userData: '', userDataSecretDir: empty }))).rejects.toThrow(
      /userdata or userData/,
    );
    await expect(createCloudInitIso(request({ userData: '', userDataBase64: 'not base64!' }))).rejects.toThrow(
      /user_data_base64/,
    );
  });

  it('refuses namespaces and names that would leave the directory, creating nothing', async () => {
    for (const [namespace, name] of [
      ['..', 'vm'],
      ['default', '../../etc'],
      ['a/b', 'vm'],
      ['default', '..'],
      ['default', ''],
    ] as const) {
      await expect(createCloudInitIso(request({ namespace, name }))).rejects.toThrow(InvalidObjectNameError);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('config ISOs', () => {
  /** A directory laid out like Kubernetes' atomic writer: keys are symlinks into ..data. */
  function atomicWriterDir(): string {
    const source = join(dir, 'config-map', 'app-config');
    const stamp = join(source, '..2026_01_01_00_00_00.000000001');
    mkdirSync(stamp, { recursive: true });
    writeFileSync(join(stamp, 'app.properties'), 'color=blue\n');
    writeFileSync(join(stamp, 'motd'), 'hello guest\n');
    symlinkSync('..2026_01_01_00_00_00.000000001', join(source, '..data'));
    symlinkSync('..data/app.properties', join(source, 'app.properties'));
    symlinkSync('..data/motd', join(source, 'motd'));
    return source;
  }

  it('builds an ISO of the keys with links followed and the given label', async () => {
    const source = atomicWriterDir();
    const target = join(dir, 'config-map-disks', 'app-config.iso');
    const result = await createConfigIso({ sourceDir: source, targetPath: target, label: 'mycfg' });
    expect(result).toMatchObject({ path: target, label: 'mycfg' });
    expect(isoVolumeId(target)).toBe('mycfg');
    expect(isoFiles(target)).toEqual(['/app.properties', '/motd']);
    const out = extractIso(target, join(dir, 'out'));
    expect(readFileSync(join(out, 'motd'), 'utf8')).toBe('hello guest\n');
    expect(readdirSync(join(dir, 'config-map-disks'))).toEqual(['app-config.iso']);
  });

  it('rebuilds on every call with fresh content and defaults the label to cfgdata', async () => {
    const source = join(dir, 'src');
    mkdirSync(source);
    writeFileSync(join(source, 'key'), 'one');
    const target = join(dir, 'out.iso');
    await createConfigIso({ sourceDir: source, targetPath: target, label: '' });
    writeFileSync(join(source, 'key'), 'two');
    await createConfigIso({ sourceDir: source, targetPath: target, label: '' });
    expect(isoVolumeId(target)).toBe('cfgdata');
    expect(readFileSync(join(extractIso(target, join(dir, 'x')), 'key'), 'utf8')).toBe('two');
  });

  it('refuses bad labels and sysprep without an answer file', async () => {
    const source = join(dir, 'src');
    mkdirSync(source);
    const target = join(dir, 'out.iso');
    await expect(createConfigIso({ sourceDir: source, targetPath: target, label: 'x'.repeat(33) })).rejects.toThrow(
      InvalidIsoLabelError,
    );
    await expect(createSysprepIso({ sourceDir: source, targetPath: target, label: '' })).rejects.toThrow(
      SysprepUnattendMissingError,
    );
    writeFileSync(join(source, 'Autounattend.XML'), '<unattend/>');
    await expect(createSysprepIso({ sourceDir: source, targetPath: target, label: '' })).resolves.toMatchObject({
      label: 'unattendCD',
    });
  });
});
