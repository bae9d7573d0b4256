// A config volume's links are followed only inside the volume; anything else fails the build with nothing
// published. And an ISO whose tree differs from what was asked for is refused (iso-check.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoFiles, scratchDir } from '../test/helpers.js';
import { pinDirectory } from './beneath.js';
import { createConfigIso } from './config-iso.js';
import { IncompleteIsoError, UnsafeConfigEntryError } from './errors.js';
import { checkIsoContent } from './iso-check.js';
import { buildIso, type IsoTool } from './iso.js';

let dir: string;
let cleanup: () => void;
let source: string;
beforeEach(() => {
  ({ dir, cleanup } = scratchDir());
  source = join(dir, 'secret', 'creds');
  mkdirSync(join(source, '..2026_12_01', 'nested', 'deeper'), { recursive: true });
  writeFileSync(join(source, '..2026_12_01', 'password'), 'hunter2\n');
  writeFileSync(join(source, '..2026_12_01', 'nested', 'deeper', 'leaf'), 'leaf\n');
  symlinkSync('..2026_12_01', join(source, '..data'));
  symlinkSync('..data/password', join(source, 'password'));
  symlinkSync('..data/nested', join(source, 'nested'));
  writeFileSync(join(dir, 'outside'), 'node file\n');
});
afterEach(() => cleanup());

const disks = () => join(dir, 'secret-disks');
const build = () => createConfigIso({ sourceDir: source, targetPath: join(disks(), 'creds.iso'), label: '' });

/** The build failed for `entry`, and neither an ISO nor a staged copy of the secret is left. */
async function refusedEntry(entry: string, reason: RegExp): Promise<void> {
  const error = await build().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnsafeConfigEntryError);
  expect((error as UnsafeConfigEntryError).entry).toBe(entry);
  expect((error as UnsafeConfigEntryError).reason).toMatch(reason);
  expect(readdirSync(disks())).toEqual([]);
}

describe('config volume content, links followed only inside the volume', () => {
  it('follows the atomic writer links, nested directories included', async () => {
    await build();
    expect(isoFiles(join(disks(), 'creds.iso'))).toEqual(['/nested/deeper/leaf', '/password']);
    expect(readdirSync(disks())).toEqual(['creds.iso']);
  });

  it('refuses an absolute link, even to a file that exists', async () => {
    symlinkSync(join(dir, 'outside'), join(source, 'absolute'));
    await refusedEntry('absolute', /absolute path/);
  });

  it('refuses a relative link that climbs out of the volume, also from inside ..data', async () => {
    symlinkSync('../../outside', join(source, '..2026_12_01', 'climb'));
    symlinkSync('..data/climb', join(source, 'climb'));
    await refusedEntry('climb', /leads out of the volume/);
  });

  it('refuses a link loop and a link to the volume itself', async () => {
    symlinkSync('loop', join(source, 'loop'));
    await refusedEntry('loop', /too many links/);
    execFileSync('rm', [join(source, 'loop')]);
    symlinkSync('.', join(source, 'self'));
    await refusedEntry('self', /the volume itself/);
  });

  it('refuses a FIFO instead of hanging on it', async () => {
    execFileSync('mkfifo', [join(source, 'pipe')]);
    await refusedEntry('pipe', /not a regular file/);
  });
});

describe.each<IsoTool>(['genisoimage', 'xorriso'])('the ISO is read back (%s)', (tool) => {
  it('an ISO without a file that was asked for is refused, naming it', async () => {
    const content = join(dir, 'content');
    mkdirSync(join(content, 'sub'), { recursive: true });
    writeFileSync(join(content, 'a'), 'a');
    writeFileSync(join(content, 'sub', 'b'), 'b');
    const pinned = await pinDirectory(join(dir, 'isos'));
    try {
      await buildIso({ dir: pinned, name: 'x.iso', label: 'x', content: { kind: 'directory', dir: content }, tool });
      // The same ISO checked against content with one more file and one fewer.
      writeFileSync(join(content, 'extra'), 'e');
      execFileSync('rm', [join(content, 'a')]);
      const error = await checkIsoContent(tool, pinned.at(''), 'x.iso', 'x.iso', { kind: 'directory', dir: content })
        .then(() => undefined)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IncompleteIsoError);
      expect(error).toMatchObject({ missing: ['/extra'], unexpected: ['/a'] });
    } finally {
      await pinned.close();
    }
  });
});
