import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { qemuInfo, scratchDir, sh } from '../test/helpers.js';
import {
  BackingFileNotFoundError,
  BackingFormatMismatchError,
  ForeignLayerError,
  InvalidVolumeNameError,
  UnsupportedImageError,
  clearImageFactsCache,
  createWriteLayer,
  type ProgressEvent,
} from './index.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = scratchDir());
  clearImageFactsCache();
});
afterEach(() => cleanup());

function image(name: string, format: string, size: string, extra: string[] = []): string {
  const path = join(dir, name);
  sh('qemu-img', ['create', '-q', '-f', format, ...extra, path, size]);
  return path;
}

const layer = (volume: string, backingFile: string, backingFormat?: string) =>
  createWriteLayer({ ephemeralDir: join(dir, 'eph'), volume, backingFile, backingFormat });

describe('createWriteLayer', () => {
  it('layers over a raw image with the detected format and size', async () => {
    const backing = image('base.raw', 'raw', '3M');
    const result = await layer('rootdisk', backing);
    expect(result).toEqual({
      path: join(dir, 'eph', 'disk-data', 'rootdisk', 'disk.qcow2'),
      backingFormat: 'raw',
      created: true,
      virtualSize: 3n * 1024n * 1024n,
    });
    const info = qemuInfo(result.path);
    expect(info['format']).toBe('qcow2');
    expect(info['backing-filename']).toBe(backing);
    expect(info['backing-filename-format']).toBe('raw');
    expect(info['virtual-size']).toBe(3 * 1024 * 1024);
    expect(statSync(result.path).mode & 0o777).toBe(0o640);
  });

  it('detects a qcow2 backing (a wrong -F raw would report the qcow2 file size instead)', async () => {
    const backing = image('base.qcow2', 'qcow2', '5M');
    const result = await layer('rootdisk', backing);
    expect(result.backingFormat).toBe('qcow2');
    const info = qemuInfo(result.path);
    expect(info['backing-filename-format']).toBe('qcow2');
    expect(info['virtual-size']).toBe(5 * 1024 * 1024);
  });

  it('keeps the guest writes: a second call reuses the layer untouched', async () => {
    const backing = image('base.raw', 'raw', '1M');
    const first = await layer('rootdisk', backing);
    sh('qemu-io', ['-f', 'qcow2', '-c', 'write -P 0x5a 0 64k', first.path]);
    const before = statSync(first.path, { bigint: true });
    const second = await layer('rootdisk', backing);
    expect(second).toEqual({ ...first, created: false });
    const after = statSync(first.path, { bigint: true });
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeNs).toBe(before.mtimeNs);
    expect(sh('qemu-io', ['-f', 'qcow2', '-c', 'read -P 0x5a 0 64k', first.path])).toContain('read 65536/65536');
    // The backing itself was never written.
    expect(sh('qemu-io', ['-f', 'raw', '-c', 'read -P 0 0 64k', backing])).toContain('read 65536/65536');
  });

  it('makes one file for 20 concurrent calls and returns the same path to all', async () => {
    const backing = image('base.raw', 'raw', '1M');
    const results = await Promise.all(Array.from({ length: 20 }, () => layer('rootdisk', backing)));
    expect(new Set(results.map((r) => r.path)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(readdirSync(join(dir, 'eph', 'disk-data', 'rootdisk'))).toEqual(['disk.qcow2']);
  });

  it('makes one file when separate processes race for the same layer', async () => {
    const backing = image('base.raw', 'raw', '1M');
    const cli = join(import.meta.dirname, '..', 'dist', 'cli.js');
    const args = ['write-layer', '--quiet', '--dir', join(dir, 'eph'), '--volume', 'rootdisk', '--backing', backing];
    const runs = await Promise.all(Array.from({ length: 6 }, () => promisify(execFile)('node', [cli, ...args])));
    expect(new Set(runs.map((r) => r.stdout.trim())).size).toBe(1);
    expect(readdirSync(join(dir, 'eph', 'disk-data', 'rootdisk'))).toEqual(['disk.qcow2']);
  });

  it('resolves a relative backing path against the caller, not the layer directory', async () => {
    image('base.raw', 'raw', '1M');
    const previous = process.cwd();
    process.chdir(dir);
    try {
      const result = await layer('rootdisk', 'base.raw');
      expect(qemuInfo(result.path)['full-backing-filename']).toBe(join(dir, 'base.raw'));
    } finally {
      process.chdir(previous);
    }
  });

  it('removes temp files of crashed calls but keeps the real layer', async () => {
    const backing = image('base.raw', 'raw', '1M');
    const layerDir = join(dir, 'eph', 'disk-data', 'rootdisk');
    sh('mkdir', ['-p', layerDir]);
    // pid 2^22+1 is above Linux's pid_max limit, so no live process can own this temp file.
    const stale = join(layerDir, `.disk.qcow2.tmp-${2 ** 22 + 1}-abcdef`);
    writeFileSync(stale, 'half a header');
    await layer('rootdisk', backing);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(layerDir)).toEqual(['disk.qcow2']);
  });

  it('rejects formats other than raw/qcow2 and qcow2 with its own backing file, creating nothing', async () => {
    const vmdk = image('base.vmdk', 'vmdk', '1M');
    await expect(layer('a', vmdk)).rejects.toThrow(UnsupportedImageError);
    const base = image('base.raw', 'raw', '1M');
    const chained = image('chained.qcow2', 'qcow2', '1M', ['-b', base, '-F', 'raw']);
    const error = await layer('b', chained).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedImageError);
    expect((error as UnsupportedImageError).backingFile).toBe(base);
    expect(existsSync(join(dir, 'eph'))).toBe(false);
  });

  it('refuses an explicit format that disagrees with the image', async () => {
    const qcow = image('base.qcow2', 'qcow2', '1M');
    const error = await layer('rootdisk', qcow, 'raw').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackingFormatMismatchError);
    expect(error).toMatchObject({ requested: 'raw', detected: 'qcow2' });
    await expect(layer('rootdisk', qcow, 'qcow2')).resolves.toMatchObject({ backingFormat: 'qcow2' });
  });

  it('names a missing backing file', async () => {
    const missing = join(dir, 'nope.img');
    await expect(layer('rootdisk', missing)).rejects.toThrow(new BackingFileNotFoundError(missing).message);
  });

  it('sees a backing image replaced in place (cached facts follow the file)', async () => {
    const path = image('base.img', 'raw', '1M');
    expect((await layer('one', path)).backingFormat).toBe('raw');
    sh('rm', [path]);
    image('base.img', 'qcow2', '2M');
    const second = await layer('two', path);
    expect(second).toMatchObject({ backingFormat: 'qcow2', virtualSize: 2n * 1024n * 1024n });
  });

  it('refuses hostile volume names before touching any file', async () => {
    const backing = image('base.raw', 'raw', '1M');
    for (const volume of ['../x', '/abs', 'a/b', '', 'a\0b', 'x'.repeat(64), 'Upper', '.', '..', '-a', 'a-']) {
      await expect(layer(volume, backing)).rejects.toThrow(InvalidVolumeNameError);
    }
    expect(readdirSync(dir)).toEqual(['base.raw']);
  });

  it('reports progress, and refuses an existing layer over another backing (it was not made for this volume)', async () => {
    const one = image('one.raw', 'raw', '1M');
    const two = image('two.raw', 'raw', '1M');
    const events: ProgressEvent[] = [];
    const onProgress = (e: ProgressEvent) => events.push(e);
    await createWriteLayer({ ephemeralDir: join(dir, 'eph'), volume: 'v', backingFile: one }, { onProgress });
    await createWriteLayer({ ephemeralDir: join(dir, 'eph'), volume: 'v', backingFile: one }, { onProgress });
    expect(events.map((e) => e.step)).toEqual(['inspect-backing', 'create-layer', 'inspect-backing', 'reuse-layer']);
    expect(relative(dir, events[1]?.subject ?? '')).toBe('eph/disk-data/v/disk.qcow2');
    const error = await createWriteLayer({ ephemeralDir: join(dir, 'eph'), volume: 'v', backingFile: two }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ForeignLayerError);
    expect(error).toMatchObject({ volume: 'v', expectedBacking: two, foundBacking: one });
  });
});
