// Symlinks planted in the directories this package writes to (issue 23 item 3). Whoever can write there must
// not be able to have a layer, disk or ISO written through a link, nor a foreign file "reused" as a disk:
// each attempt below must end in an UnsafePathError while the file or directory outside stays untouched.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scratchDir, sh } from '../test/helpers.js';
import {
  CloudInitType,
  UnsafePathError,
  clearImageFactsCache,
  createCloudInitIso,
  createConfigIso,
  createEmptyDisk,
  createEmptyIso,
  createHostDisk,
  createWriteLayer,
} from './index.js';

let dir: string;
let cleanup: () => void;
/** Outside the disk directories: what an attacker wants written or handed to the guest. */
let outside: string;
let victim: string;
let backing: string;
beforeEach(() => {
  ({ dir, cleanup } = scratchDir());
  clearImageFactsCache();
  outside = join(dir, 'outside');
  mkdirSync(outside);
  victim = join(outside, 'victim.qcow2');
  // A valid qcow2, so that "reusing" it would otherwise succeed.
  sh('qemu-img', ['create', '-q', '-f', 'qcow2', victim, '1M']);
  backing = join(dir, 'base.raw');
  sh('qemu-img', ['create', '-q', '-f', 'raw', backing, '1M']);
});
afterEach(() => cleanup());

/** Snapshot of everything under `outside`; call the result to assert nothing changed. */
function outsideUntouched(): () => void {
  const snapshot = () =>
    (readdirSync(outside, { recursive: true }) as string[]).sort().map((name) => {
      const path = join(outside, name);
      const info = statSync(path);
      return [name, info.mtimeMs, info.size, info.isFile() ? readFileSync(path).toString('base64') : ''];
    });
  const before = snapshot();
  return () => expect(snapshot()).toEqual(before);
}

async function refused(work: Promise<unknown>, path: string, found = 'symlink'): Promise<void> {
  const error = await work.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UnsafePathError);
  expect(error).toMatchObject({ path, found });
}

const eph = () => join(dir, 'eph');
const layer = () => createWriteLayer({ ephemeralDir: eph(), volume: 'rootdisk', backingFile: backing });

describe('write layer', () => {
  it('refuses disk-data/<vol> as a link to another directory', async () => {
    mkdirSync(join(eph(), 'disk-data'), { recursive: true });
    symlinkSync(outside, join(eph(), 'disk-data', 'rootdisk'));
    const check = outsideUntouched();
    await refused(layer(), join(eph(), 'disk-data', 'rootdisk'));
    check();
  });

  it('refuses disk-data itself as a link (a directory component higher up)', async () => {
    mkdirSync(join(outside, 'rootdisk'));
    mkdirSync(eph());
    symlinkSync(outside, join(eph(), 'disk-data'));
    const check = outsideUntouched();
    await refused(layer(), join(eph(), 'disk-data'));
    check();
  });

  it('does not "reuse" a disk.qcow2 that links to a file outside', async () => {
    mkdirSync(join(eph(), 'disk-data', 'rootdisk'), { recursive: true });
    symlinkSync(victim, join(eph(), 'disk-data', 'rootdisk', 'disk.qcow2'));
    const check = outsideUntouched();
    await refused(layer(), join(eph(), 'disk-data', 'rootdisk', 'disk.qcow2'));
    check();
  });

  it('refuses a FIFO planted as the layer instead of hanging on it', async () => {
    mkdirSync(join(eph(), 'disk-data', 'rootdisk'), { recursive: true });
    execFileSync('mkfifo', [join(eph(), 'disk-data', 'rootdisk', 'disk.qcow2')]);
    await refused(layer(), join(eph(), 'disk-data', 'rootdisk', 'disk.qcow2'), 'not a regular file');
  });
});

describe('empty disk', () => {
  const empty = () => createEmptyDisk({ emptyDiskDir: join(dir, 'empty-disks'), volume: 'scratch', capacity: '1Mi' });

  it('refuses the empty-disk directory as a link', async () => {
    symlinkSync(outside, join(dir, 'empty-disks'));
    const check = outsideUntouched();
    await refused(empty(), join(dir, 'empty-disks'));
    check();
  });

  it('does not reuse <vol>.qcow2 linking to a file outside', async () => {
    mkdirSync(join(dir, 'empty-disks'));
    symlinkSync(victim, join(dir, 'empty-disks', 'scratch.qcow2'));
    const check = outsideUntouched();
    await refused(empty(), join(dir, 'empty-disks', 'scratch.qcow2'));
    check();
  });
});

describe('cloud-init ISO', () => {
  const iso = () =>
    createCloudInitIso({
      ephemeralDir: eph(),
      namespace: 'ns',
      name: 'vm',
      type: CloudInitType.CLOUD_INIT_TYPE_NOCLOUD,
      userData: '#cloud-config\n',
      userDataBase64: '',
      userDataSecretDir: '',
      networkData: '',
      networkDataBase64: '',
      networkDataSecretDir: '',
      metaData: undefined,
    });

  it('refuses cloud-init-data/<ns> as a link (the ISO and its staged secrets would land outside)', async () => {
    mkdirSync(join(outside, 'vm'));
    mkdirSync(join(eph(), 'cloud-init-data'), { recursive: true });
    symlinkSync(outside, join(eph(), 'cloud-init-data', 'ns'));
    const check = outsideUntouched();
    await refused(iso(), join(eph(), 'cloud-init-data', 'ns'));
    check();
  });

  it('refuses noCloud.iso as a link to a file outside instead of replacing or writing it', async () => {
    const vmDir = join(eph(), 'cloud-init-data', 'ns', 'vm');
    mkdirSync(vmDir, { recursive: true });
    symlinkSync(victim, join(vmDir, 'noCloud.iso'));
    const check = outsideUntouched();
    await refused(iso(), join(vmDir, 'noCloud.iso'));
    check();
    // Nothing half-made is left beside it (no temp ISO, no staging directory).
    expect(readdirSync(vmDir)).toEqual(['noCloud.iso']);
  });
});

describe('config ISO and placeholders', () => {
  let source: string;
  beforeEach(() => {
    source = join(dir, 'config-map', 'cm');
    mkdirSync(source, { recursive: true });
    writeFileSync(join(source, 'key'), 'value');
  });
  const config = (target: string) => createConfigIso({ sourceDir: source, targetPath: target, label: '' });

  it('refuses the ISO directory as a link', async () => {
    symlinkSync(outside, join(dir, 'config-map-disks'));
    const check = outsideUntouched();
    await refused(config(join(dir, 'config-map-disks', 'cm.iso')), join(dir, 'config-map-disks'));
    check();
  });

  it('refuses the ISO name as a link to a file outside', async () => {
    mkdirSync(join(dir, 'config-map-disks'));
    symlinkSync(victim, join(dir, 'config-map-disks', 'cm.iso'));
    const check = outsideUntouched();
    await refused(config(join(dir, 'config-map-disks', 'cm.iso')), join(dir, 'config-map-disks', 'cm.iso'));
    check();
  });

  it('refuses a migration placeholder ISO whose name links outside', async () => {
    mkdirSync(join(dir, 'disks'));
    symlinkSync(victim, join(dir, 'disks', 'placeholder.iso'));
    const check = outsideUntouched();
    await refused(createEmptyIso(join(dir, 'disks', 'placeholder.iso'), 4096n), join(dir, 'disks', 'placeholder.iso'));
    check();
  });

  it('refuses a host disk whose name links to a file outside', async () => {
    mkdirSync(join(dir, 'host'));
    symlinkSync(victim, join(dir, 'host', 'disk.img'));
    const check = outsideUntouched();
    await refused(
      createHostDisk({ path: join(dir, 'host', 'disk.img'), capacity: '1Mi' }),
      join(dir, 'host', 'disk.img'),
    );
    check();
  });
});
