// Images the pod did not make, built to reach outside themselves (issue 23 item 1): a qcow2 with an external
// data file would have QEMU read and write another file of the pod as the guest's disk; a backing file (even
// through a symlink) would have it read one. Each is tried for real with qemu-img and must be refused with a
// typed error naming the volume and the reference, leaving the target file and the disk directories untouched.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { qemuInfo, scratchDir, sh } from '../test/helpers.js';
import {
  ExternalReferenceError,
  clearImageFactsCache,
  createEmptyDisk,
  createWriteLayer,
  inspectImage,
} from './index.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

let dir: string;
let cleanup: () => void;
let secret: string;
beforeEach(() => {
  ({ dir, cleanup } = scratchDir());
  clearImageFactsCache();
  secret = join(dir, 'secret');
  writeFileSync(secret, 'pod secret: do not hand me to the guest\n'.repeat(1000));
});
afterEach(() => cleanup());

function untouched(path: string): () => void {
  const before = { text: readFileSync(path, 'utf8'), mtime: statSync(path).mtimeMs };
  return () => {
    expect(readFileSync(path, 'utf8')).toBe(before.text);
    expect(statSync(path).mtimeMs).toBe(before.mtime);
  };
}

/** A qcow2 made exactly as an attacker would, pointing its data at `target`. */
function dataFileImage(name: string, target: string, raw: boolean): string {
  const path = join(dir, name);
  const options = `data_file=${target}${raw ? ',data_file_raw=on' : ''}`;
  sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-o', options, path, '1M']);
  return path;
}

const layer = (volume: string, backingFile: string) =>
  createWriteLayer({ ephemeralDir: join(dir, 'eph'), volume, backingFile });

describe('images that refer outside themselves', () => {
  it.each([
    ['data_file', false],
    ['data_file with data_file_raw=on', true],
  ])('refuses a container disk with an external %s, before any qemu-img run or directory', async (_name, raw) => {
    const image = dataFileImage('disk_0.img', secret, raw);
    // The attack works with a plain QEMU: the image's data is the secret file.
    expect(qemuInfo(image)['format-specific']).toMatchObject({ data: { 'data-file': secret } });
    const check = untouched(secret);
    const error = await layer('rootdisk', image).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExternalReferenceError);
    expect(error).toMatchObject({ volume: 'rootdisk', kind: 'external data file', reference: secret, path: image });
    expect((error as Error).message).toContain('volume rootdisk');
    expect((error as Error).message).toContain(secret);
    expect(existsSync(join(dir, 'eph'))).toBe(false);
    check();
    // The launcher reads container disks with inspectImage: the same refusal reaches it.
    await expect(inspectImage(image, {}, { volume: 'rootdisk' })).rejects.toThrow(ExternalReferenceError);
  });

  it('refuses a qcow2 with a backing file, and one whose backing is a symlink out of the directory', async () => {
    const base = join(dir, 'base.raw');
    sh('qemu-img', ['create', '-q', '-f', 'raw', base, '1M']);
    const chained = join(dir, 'chained.qcow2');
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', base, '-F', 'raw', chained]);
    await expect(layer('a', chained)).rejects.toMatchObject({ kind: 'backing file', reference: base, volume: 'a' });

    mkdirSync(join(dir, 'disks'));
    symlinkSync(secret, join(dir, 'disks', 'innocent.raw'));
    const linked = join(dir, 'disks', 'disk_1.img');
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-u', '-b', 'innocent.raw', '-F', 'raw', linked, '1M']);
    const check = untouched(secret);
    const error = await layer('b', linked).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExternalReferenceError);
    expect(error).toMatchObject({ kind: 'backing file', volume: 'b' });
    expect((error as ExternalReferenceError).reference).toContain('innocent.raw');
    expect(existsSync(join(dir, 'eph'))).toBe(false);
    check();
  });

  it('refuses a qcow2 whose backing is a json: filename naming another file', async () => {
    const spec = JSON.stringify({ driver: 'raw', file: { driver: 'file', filename: secret } });
    const image = join(dir, 'disk_2.img');
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-u', '-b', `json:${spec}`, '-F', 'raw', image, '1M']);
    const check = untouched(secret);
    const error = await layer('c', image).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExternalReferenceError);
    expect(error).toMatchObject({ kind: 'backing file', reference: `json:${spec}`, volume: 'c' });
    check();
  });

  it('accepts a raw image and a self-contained qcow2', async () => {
    const raw = join(dir, 'disk.raw');
    sh('qemu-img', ['create', '-q', '-f', 'raw', raw, '2M']);
    await expect(layer('raw', raw)).resolves.toMatchObject({ backingFormat: 'raw', created: true });
    const qcow = join(dir, 'disk.qcow2');
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', qcow, '2M']);
    await expect(layer('qcow', qcow)).resolves.toMatchObject({ backingFormat: 'qcow2', created: true });
  });

  it('refuses a planted write layer or empty disk whose data lives in another file', async () => {
    const raw = join(dir, 'disk.raw');
    sh('qemu-img', ['create', '-q', '-f', 'raw', raw, '1M']);
    // Regular files (no symlink involved) at the layer's and the empty disk's names, each with a data file.
    const layerDir = join(dir, 'eph', 'disk-data', 'rootdisk');
    mkdirSync(layerDir, { recursive: true });
    const options = `data_file=${secret},backing_file=${raw},backing_fmt=raw`;
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-o', options, join(layerDir, 'disk.qcow2'), '1M']);
    const emptyDir = join(dir, 'empty-disks');
    mkdirSync(emptyDir);
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-o', `data_file=${secret}`, join(emptyDir, 'scratch.qcow2'), '1M']);
    // qemu-img truncated the secret while planting; give it content again to see any write.
    writeFileSync(secret, 'pod secret\n');
    const check = untouched(secret);
    await expect(layer('rootdisk', raw)).rejects.toMatchObject({ kind: 'external data file', volume: 'rootdisk' });
    const empty = createEmptyDisk({ emptyDiskDir: emptyDir, volume: 'scratch', capacity: '1Mi' });
    await expect(empty).rejects.toThrow(ExternalReferenceError);
    check();
  });

  it('virt-ephemeral-disk write-layer refuses it too: exit 2 and one line naming the data file', () => {
    const image = dataFileImage('disk_0.img', secret, true);
    const result = spawnSync(
      'node',
      [CLI, 'write-layer', '--quiet', '--dir', join(dir, 'eph'), '--volume', 'root', '--backing', image],
      { encoding: 'utf8' },
    );
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`external data file "${secret}"`);
    expect(existsSync(join(dir, 'eph'))).toBe(false);
  });
});
