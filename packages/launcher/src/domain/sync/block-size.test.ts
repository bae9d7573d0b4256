import { mkdir, mkdtemp, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors.js';
import { parseFlags } from '../../flags.js';
import { resolvePaths } from '../../paths.js';
import { parseVmiRequest } from '../../vmi.js';
import { deviceNumbers, probeVolumeBlockSizes } from './block-size-probe.js';
import { deviceBlockSizes, fileBlockSizes, matchVolumeDisks, measureTargets } from './block-size.js';

const paths = resolvePaths(parseFlags(['--run-root', '/rr', '--uid', 'u-1'], {}));

function vmi(disks: unknown[], volumes: unknown[], volumeStatus: unknown[] = []) {
  const doc = {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { name: 'vm', namespace: 'default', uid: 'u-1' },
    spec: { domain: { resources: { requests: { memory: '64Mi' } }, devices: { disks } }, volumes },
    status: { volumeStatus },
  };
  return parseVmiRequest(Buffer.from(JSON.stringify(doc)));
}

const match = (name: string, blockSize: unknown = { matchVolume: {} }) => ({ name, disk: {}, blockSize });
const claim = (name: string) => ({ name, persistentVolumeClaim: { claimName: `c-${name}` } });

describe('which volumes blockSize.matchVolume asks the launcher to measure', () => {
  it('disks with matchVolume listed (on unless enabled: false) and no custom size', () => {
    const v = vmi(
      [
        match('on'),
        match('explicit', { matchVolume: { enabled: true } }),
        match('off', { matchVolume: { enabled: false } }),
        match('custom', { custom: { logical: 512, physical: 512 }, matchVolume: {} }),
        { name: 'plain', disk: {} },
      ],
      ['on', 'explicit', 'off', 'custom', 'plain'].map(claim),
    );
    expect(matchVolumeDisks(v)).toEqual([
      { name: 'on', field: 'spec.domain.devices.disks[0].blockSize.matchVolume' },
      { name: 'explicit', field: 'spec.domain.devices.disks[1].blockSize.matchVolume' },
    ]);
  });

  it('measures where the converter points: /dev/<volume>, disk.img, a host disk file, hotplug disks', () => {
    const v = vmi(
      ['blk', 'fs', 'dv', 'host', 'hot', 'cd', 'eph'].map((n) => match(n)),
      [
        claim('blk'),
        claim('fs'),
        { name: 'dv', dataVolume: { name: 'dv1' } },
        { name: 'host', hostDisk: { path: '/data/images/host.img', type: 'Disk' } },
        claim('hot'),
        { name: 'cd', containerDisk: { image: 'i' } },
        { name: 'eph', ephemeral: { persistentVolumeClaim: { claimName: 'c' } } },
      ],
      [{ name: 'hot', hotplugVolume: {}, phase: 'Ready' }],
    );
    const targets = measureTargets(v, { blk: true, hot: true }, paths);
    expect(targets.map(({ volume, kind, path }) => [volume, kind, path])).toEqual([
      ['blk', 'block', '/rr/dev/blk'],
      ['fs', 'file', '/rr/var/run/kubevirt-private/vmi-disks/fs/disk.img'],
      ['dv', 'file', '/rr/var/run/kubevirt-private/vmi-disks/dv/disk.img'],
      ['host', 'file', '/rr/var/run/kubevirt-private/vmi-disks/host/host.img'],
      ['hot', 'block', '/rr/var/run/kubevirt/hotplug-disks/hot'],
    ]);
    // A container disk or ephemeral overlay is made later: not measured, so the converter refuses it by name.
  });
});

describe("a device's sizes as KubeVirt settles them", () => {
  const target = { volume: 'v', field: 'spec.domain.devices.disks[0].blockSize.matchVolume', path: '/dev/v' };

  it('keeps what the device reports', () => {
    expect(deviceBlockSizes(target, 512, 4096, 4096)).toEqual({
      logical: 512,
      physical: 4096,
      discardGranularity: 4096,
    });
    expect(deviceBlockSizes(target, 4096, 4096, 0)).toEqual({ logical: 4096, physical: 4096, discardGranularity: 0 });
  });

  it('a zero size takes the other one; both zero is refused naming the disk', () => {
    expect(deviceBlockSizes(target, 0, 4096, 4096).logical).toBe(4096);
    expect(deviceBlockSizes(target, 512, 0, 512).physical).toBe(512);
    const refused = (() => {
      try {
        deviceBlockSizes(target, 0, 0, 0);
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect((refused as InvalidRequestError).field).toBe(target.field);
  });

  it('a discard granularity that is not a multiple of the logical size becomes the physical size', () => {
    expect(deviceBlockSizes(target, 4096, 4096, 512).discardGranularity).toBe(4096);
  });

  it("a file's filesystem block size serves for all three", () => {
    expect(fileBlockSizes(4096)).toEqual({ logical: 4096, physical: 4096, discardGranularity: 4096 });
  });

  it("splits Linux's dev_t into major and minor", () => {
    expect(deviceNumbers(0x0703n)).toEqual({ major: 7n, minor: 3n });
    // Large minors spill into the high bits (loop devices past 255).
    expect(deviceNumbers((0x1n << 20n) | (0x7n << 8n) | 0x2an)).toEqual({ major: 7n, minor: 0x12an });
  });
});

describe('measuring file-backed volumes', () => {
  let root = '';
  let rooted = paths;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'vlt-launcher-blocksize-'));
    rooted = resolvePaths(parseFlags(['--run-root', root, '--uid', 'u-1'], {}));
    await mkdir(join(rooted.vmiDisksDir, 'fs'), { recursive: true });
    await writeFile(join(rooted.vmiDisksDir, 'fs', 'disk.img'), '');
    await mkdir(join(rooted.vmiDisksDir, 'later'), { recursive: true });
  });

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("takes the filesystem's block size of disk.img, or of its directory when disk.img is not made yet", async () => {
    const { bsize } = await statfs(root);
    const v = vmi([match('fs'), match('later')], [claim('fs'), claim('later')]);
    expect(await probeVolumeBlockSizes(v, {}, rooted)).toEqual({
      fs: { logical: bsize, physical: bsize, discardGranularity: bsize },
      later: { logical: bsize, physical: bsize, discardGranularity: bsize },
    });
  });

  it('a volume with neither file nor directory is refused naming the disk and the path', async () => {
    const v = vmi([{ name: 'x', disk: {} }, match('gone')], [claim('x'), claim('gone')]);
    const err = await probeVolumeBlockSizes(v, {}, rooted).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).field).toBe('spec.domain.devices.disks[1].blockSize.matchVolume');
    expect((err as Error).message).toContain(join(rooted.vmiDisksDir, 'gone', 'disk.img'));
  });

  it('a "block" volume whose node is not a block device is refused', async () => {
    await mkdir(join(root, 'dev'), { recursive: true });
    await writeFile(join(root, 'dev', 'fake'), '');
    const v = vmi([match('fake')], [claim('fake')]);
    await expect(probeVolumeBlockSizes(v, { fake: true }, rooted)).rejects.toThrow(/not a block device/);
  });

  it('asks nothing when no disk matches its volume', async () => {
    expect(await probeVolumeBlockSizes(vmi([{ name: 'p', disk: {} }], [claim('p')]), {}, rooted)).toEqual({});
  });
});
