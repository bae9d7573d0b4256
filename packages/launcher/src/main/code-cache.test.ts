import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BUNDLE_HEAD,
  BUNDLE_TAIL,
  codeCachePath,
  DYNAMIC_IMPORT_PARAMETER,
  NotABundleError,
  runCommonJsBundle,
  writeCodeCache,
} from './code-cache.js';

interface Probe {
  answer: () => number;
  where: string;
  builtin: string;
  imported: () => Promise<unknown>;
  failsAtLine: () => void;
}

// A bundle as the build writes it: CommonJS in one function expression whose head shares the first line,
// `require` for builtins, `__vltImport(` where `import(` was. Line 6 throws.
const bundleSource = (answer: number) =>
  [
    `/* test bundle */ ${BUNDLE_HEAD}`,
    `const { sep } = require('node:path');`,
    `module.exports.answer = () => ${answer};`,
    `module.exports.where = __filename;`,
    `module.exports.builtin = sep;`,
    `module.exports.failsAtLine = () => { throw new Error('at line 6'); };`,
    `module.exports.imported = () => ${DYNAMIC_IMPORT_PARAMETER}('some-package');`,
  ].join('\n') + BUNDLE_TAIL;

describe('runCommonJsBundle and writeCodeCache', () => {
  let dir: string;
  let file: string;
  const imports: string[] = [];
  const dynamicImport = async (specifier: string) => {
    imports.push(specifier);
    return { specifier };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vlt-code-cache-'));
    file = join(dir, 'bundle.cjs');
    writeFileSync(file, bundleSource(42));
    imports.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs a bundle without a cache as CommonJS: exports, require, __filename, dynamic imports through the loader', async () => {
    const run = runCommonJsBundle<Probe>(file, dynamicImport);
    expect(run.codeCache).toBe('absent');
    expect(run.exports.answer()).toBe(42);
    expect(run.exports.where).toBe(file);
    expect(run.exports.builtin).toBe('/');
    await expect(run.exports.imported()).resolves.toEqual({ specifier: 'some-package' });
    expect(imports).toEqual(['some-package']);
  });

  it('keeps the bundle line numbers in stack traces (the log position map depends on them)', () => {
    const { exports } = runCommonJsBundle<Probe>(file, dynamicImport);
    let stack = '';
    try {
      exports.failsAtLine();
    } catch (err) {
      stack = (err as Error).stack ?? '';
    }
    expect(stack).toContain(`${file}:6:`);
  });

  it('writes a cache after the training run, mode 0644, that the next run accepts', async () => {
    let trained: Probe | undefined;
    const bytes = await writeCodeCache<Probe>(file, dynamicImport, async (exports) => {
      trained = exports;
      exports.answer();
    });
    expect(trained?.answer()).toBe(42);
    expect(bytes).toBeGreaterThan(0);
    expect(statSync(codeCachePath(file)).size).toBe(bytes);
    expect(statSync(codeCachePath(file)).mode & 0o777).toBe(0o644);
    const run = runCommonJsBundle<Probe>(file, dynamicImport);
    expect(run.codeCache).toBe('accepted');
    expect(run.exports.answer()).toBe(42);
  });

  it('compiles a changed bundle afresh: the old cache is refused and the new code runs', async () => {
    await writeCodeCache<Probe>(file, dynamicImport, async () => undefined);
    writeFileSync(file, bundleSource(7));
    const run = runCommonJsBundle<Probe>(file, dynamicImport);
    expect(run.codeCache).toBe('rejected');
    expect(run.exports.answer()).toBe(7);
  });

  it('refuses the cache of another bundle of the same length (V8 itself compares only the length)', async () => {
    await writeCodeCache<Probe>(file, dynamicImport, async (exports) => void exports.answer());
    const before = readFileSync(file, 'utf8');
    writeFileSync(file, bundleSource(43));
    expect(readFileSync(file, 'utf8').length).toBe(before.length);
    const run = runCommonJsBundle<Probe>(file, dynamicImport);
    expect(run.codeCache).toBe('rejected');
    expect(run.exports.answer()).toBe(43);
  });

  it('refuses a cache file that is too short to hold a digest', () => {
    writeFileSync(codeCachePath(file), Buffer.from('short'));
    expect(runCommonJsBundle<Probe>(file, dynamicImport).codeCache).toBe('rejected');
  });

  it('refuses a cache that is not V8 code behind the right digest (V8 itself refuses it) and runs the bundle', () => {
    // Made by hand: a compile in this process would let V8 take the script from its own in-memory cache.
    const digest = createHash('sha256').update(readFileSync(file)).digest();
    writeFileSync(codeCachePath(file), Buffer.concat([digest, Buffer.from('not a code cache')]));
    const run = runCommonJsBundle<Probe>(file, dynamicImport);
    expect(run.codeCache).toBe('rejected');
    expect(run.exports.answer()).toBe(42);
  });

  it('refuses a file that is not one function expression (a plain script)', () => {
    writeFileSync(file, "'use strict';\nconst answer = 1;\n");
    expect(() => runCommonJsBundle<Probe>(file, dynamicImport)).toThrow(NotABundleError);
  });

  it('replaces a leftover temporary file of an interrupted write, whatever its mode', async () => {
    writeFileSync(`${codeCachePath(file)}.tmp`, 'partial', { mode: 0o600 });
    await writeCodeCache<Probe>(file, dynamicImport, async () => undefined);
    expect(statSync(codeCachePath(file)).mode & 0o777).toBe(0o644);
    expect(readFileSync(codeCachePath(file)).toString('latin1')).not.toBe('partial');
  });
});
