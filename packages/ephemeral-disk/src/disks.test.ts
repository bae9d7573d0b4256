import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { qemuInfo, scratchDir } from '../test/helpers.js';
import {
  InsufficientSpaceError,
  InvalidRequestError,
  InvalidVolumeNameError,
  SizeTooSmallError,
  createEmptyDisk,
  createHostDisk,
  planHostDiskSize,
} from './index.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = scratchDir()));
afterEach(() => cleanup());

const MiB = 1048576n;

describe('createEmptyDisk', () => {
  it('makes a sparse qcow2 of the capacity rounded down to 1 MiB', async () => {
    const result = await createEmptyDisk({ emptyDiskDir: join(dir, 'empty'), volume: 'scratch', capacity: '1.5Gi' });
    expect(result).toEqual({ path: join(dir, 'empty', 'scratch.qcow2'), virtualSize: 1536n * MiB, created: true });
    const info = qemuInfo(result.path);
    expect(info).toMatchObject({ format: 'qcow2', 'virtual-size': 1536 * 1048576 });
    expect(statSync(result.path).blocks * 512).toBeLessThan(1024 * 1024);
  });

  it('reuses an existing disk and keeps its size', async () => {
    const first = await createEmptyDisk({ emptyDiskDir: dir, volume: 'scratch', capacity: '10Mi' });
    const inode = statSync(first.path).ino;
    const second = await createEmptyDisk({ emptyDiskDir: dir, volume: 'scratch', capacity: '20Mi' });
    expect(second).toEqual({ path: first.path, virtualSize: 10n * MiB, created: false });
    expect(statSync(first.path).ino).toBe(inode);
  });

  it('one file for concurrent calls', async () => {
    const calls = Array.from({ length: 10 }, () =>
      createEmptyDisk({ emptyDiskDir: dir, volume: 'v', capacity: '1Mi' }),
    );
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(readdirSync(dir)).toEqual(['v.qcow2']);
  });

  it('refuses sizes below 1 MiB and hostile names, creating nothing', async () => {
    await expect(createEmptyDisk({ emptyDiskDir: dir, volume: 'v', capacity: '1000Ki' })).rejects.toThrow(
      SizeTooSmallError,
    );
    await expect(createEmptyDisk({ emptyDiskDir: dir, volume: '../v', capacity: '1Gi' })).rejects.toThrow(
      InvalidVolumeNameError,
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('createHostDisk', () => {
  it('makes a sparse raw file of the capacity when missing and keeps it afterwards', async () => {
    const path = join(dir, 'disk.img');
    const result = await createHostDisk({ path, capacity: '64Mi' });
    expect(result).toEqual({ path, size: 64n * MiB, created: true, tolerated: false });
    expect(statSync(path).size).toBe(64 * 1048576);
    expect(statSync(path).blocks).toBe(0);
    expect(qemuInfo(path)['format']).toBe('raw');
    writeFileSync(path, 'guest data', { flag: 'r+' });
    const again = await createHostDisk({ path, capacity: '128Mi' });
    expect(again).toMatchObject({ created: false, size: 64n * MiB });
  });

  it('refuses when the filesystem lacks the room, naming needed and available bytes', async () => {
    const path = join(dir, 'huge.img');
    const error = await createHostDisk({ path, capacity: '4Ei', tolerationPercent: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientSpaceError);
    const space = error as InsufficientSpaceError;
    expect(space.neededBytes).toBe(4n * 2n ** 60n);
    expect(space.availableBytes).toBeLessThan(space.neededBytes);
    expect(space.message).toContain(`needed ${4n * 2n ** 60n} bytes, available ${space.availableBytes} bytes`);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('plans the size: fits, tolerated shrink, or refusal', () => {
    expect(planHostDiskSize('/p', 100n * MiB, 200n * MiB, 10)).toEqual({ size: 100n * MiB, tolerated: false });
    expect(planHostDiskSize('/p', 100n * MiB, 95n * MiB + 5n, 10)).toEqual({ size: 95n * MiB, tolerated: true });
    expect(() => planHostDiskSize('/p', 100n * MiB, 80n * MiB, 10)).toThrow(InsufficientSpaceError);
    expect(() => planHostDiskSize('/p', 100n * MiB, 99n * MiB, 0)).toThrow(InsufficientSpaceError);
  });

  it('refuses relative paths and "..", and a missing directory', async () => {
    for (const path of ['disk.img', `${dir}/../x/disk.img`, '']) {
      await expect(createHostDisk({ path, capacity: '1Mi' })).rejects.toThrow(InvalidRequestError);
    }
    mkdirSync(join(dir, 'present'));
    await expect(createHostDisk({ path: join(dir, 'absent', 'disk.img'), capacity: '1Mi' })).rejects.toThrow(
      InvalidRequestError,
    );
  });
});
