import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scratchDir, sh } from '../test/helpers.js';
import {
  ExternalReferenceError,
  ToolError,
  clearImageFactsCache,
  createEmptyIso,
  inspectImage,
  readAccessCredentialKeys,
} from './index.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = scratchDir());
  clearImageFactsCache();
});
afterEach(() => cleanup());

describe('inspectImage', () => {
  it('reports format and size of a self-contained image and refuses one with a backing file', async () => {
    const base = join(dir, 'base.raw');
    const top = join(dir, 'top.qcow2');
    sh('qemu-img', ['create', '-q', '-f', 'raw', base, '3M']);
    expect(await inspectImage(base)).toMatchObject({ path: base, format: 'raw', virtualSize: 3n * 1048576n });
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', base, '-F', 'raw', top]);
    const error = await inspectImage(top, {}, { volume: 'disk0' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExternalReferenceError);
    expect(error).toMatchObject({ path: top, kind: 'backing file', reference: base, volume: 'disk0' });
  });

  it('runs qemu-img under the memory limit (a tiny cap makes it fail)', async () => {
    const base = join(dir, 'base.raw');
    sh('qemu-img', ['create', '-q', '-f', 'raw', base, '1M']);
    await expect(inspectImage(base, { memoryBytes: 4 * 1024 * 1024 })).rejects.toThrow(ToolError);
    await expect(inspectImage(base)).resolves.toMatchObject({ format: 'raw' });
  });
});

describe('readAccessCredentialKeys', () => {
  it('numbers non-empty keys across directories, following atomic-writer links', async () => {
    const one = join(dir, 'one-access-cred');
    const data = join(one, '..2026_01_01');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'key1'), 'ssh-ed25519 AAAA one\n');
    symlinkSync('..2026_01_01', join(one, '..data'));
    symlinkSync('..data/key1', join(one, 'key1'));
    const two = join(dir, 'two-access-cred');
    mkdirSync(two);
    writeFileSync(join(two, 'a'), 'ssh-rsa BBBB two');
    writeFileSync(join(two, 'b'), '');
    expect(await readAccessCredentialKeys([one, two])).toEqual({
      '0': 'ssh-ed25519 AAAA one',
      '1': 'ssh-rsa BBBB two',
    });
  });
});

describe('createEmptyIso', () => {
  it('writes an allocated zero-filled file of the exact size', async () => {
    const path = join(dir, 'noCloud.iso');
    writeFileSync(path, 'old');
    await createEmptyIso(path, 374784n + 5n);
    expect(statSync(path).size).toBe(374789);
    expect(readFileSync(path).every((b) => b === 0)).toBe(true);
  });
});
