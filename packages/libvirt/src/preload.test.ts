// preloadLibraries on the real dynamic loader. Whether libvirt is mapped is a per-process fact, so each case that
// looks at /proc/self/maps runs in a fresh Node process (this test file's own process may have the binding loaded).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { LIBVIRT_CLIENT_LIBRARIES, PreloadError, preloadLibraries } from './preload.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Runs `body` (ESM, with `preloadLibraries`, `mapped()` and `say()` in scope) in a new Node process; its stdout lines. */
async function inFreshProcess(body: string): Promise<string[]> {
  const script = [
    `import { readFileSync } from 'node:fs';`,
    `import { preloadLibraries } from ${JSON.stringify(join(here, 'preload.ts'))};`,
    `const mapped = () => /\\/libvirt\\.so\\.0/.test(readFileSync('/proc/self/maps', 'utf8'));`,
    // Plain text, not console.log: with FORCE_COLOR set (nx, CI) console.log colours booleans.
    `const say = (...words) => process.stdout.write(words.join(' ') + '\\n');`,
    body,
  ].join('\n');
  const r = await execa('node', ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 });
  return r.stdout.trim().split('\n');
}

describe('preloadLibraries', () => {
  it('maps libvirt in the calling process, after which the binding loads and answers', async () => {
    const lines = await inFreshProcess(
      [
        `say('before', mapped());`,
        `const pending = preloadLibraries();`,
        `say('promise', pending instanceof Promise);`,
        `await pending;`,
        `say('after', mapped());`,
        `const { connect } = await import(${JSON.stringify(join(here, 'index.ts'))});`,
        `const conn = await connect('test:///default');`,
        `say('binding', /^\\d+\\.\\d+\\.\\d+$/.test(await conn.getLibVersion()));`,
        `await conn.close();`,
      ].join('\n'),
    );
    expect(lines).toEqual(['before false', 'promise true', 'after true', 'binding true']);
  });

  it('rejects with a PreloadError that names a library the loader cannot find', async () => {
    const missing = 'libvirt-missing-for-test.so.99';
    const err = await preloadLibraries([missing]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PreloadError);
    expect((err as PreloadError).message).toContain(missing);
    expect((err as PreloadError).libraries).toEqual([missing]);
  });

  it('refuses malformed lists before any work starts', async () => {
    await expect(preloadLibraries([])).rejects.toThrow(TypeError);
    await expect(preloadLibraries(Array.from({ length: 9 }, () => 'libc.so.6'))).rejects.toThrow(/1 to 8/);
    await expect(preloadLibraries([''])).rejects.toThrow(/non-empty string/);
    await expect(preloadLibraries(['x'.repeat(300)])).rejects.toThrow(/under 255 bytes/);
    await expect(preloadLibraries([42 as unknown as string])).rejects.toThrow(TypeError);
  });

  it('names the libraries the binding links', () => {
    expect(LIBVIRT_CLIENT_LIBRARIES).toEqual(['libvirt.so.0', 'libvirt-qemu.so.0']);
  });
});
