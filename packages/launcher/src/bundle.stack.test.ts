// The shipped entry point is two esbuild bundles (scripts/bundle.ts): a small first file that spawns the daemons and
// the main sequence it runs through V8's code cache. Together they must log what the unbundled program logs, `pos`
// included, and leave every package with a native addon to load from its own files.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath } from './testing/launcher-process.js';

const unbundledPath = resolve(cliPath, '../cli.unbundled.js');
const mainPath = resolve(cliPath, '../launcher-main.cjs');
const packagesDir = resolve(cliPath, '../../..');

/** Runs the launcher on libvirt's test driver until it gives up waiting for a domain; its log lines as pos + msg. */
async function logOf(entry: string): Promise<{ status: number | null; lines: string[]; codeCache: unknown }> {
  const root = await mkdtemp(join(tmpdir(), 'vlt-launcher-bundle-'));
  try {
    const args = ['--run-root', root, '--libvirt-uri', 'test:///default', '--name', 'none', '--qemu-timeout', '1s'];
    const r = spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8', timeout: 60_000 });
    const logged = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { pos: string; msg: string; codeCache?: unknown });
    const lines = logged.map((l) => `${l.pos.replace(/^cli\.unbundled\.js:/, 'cli.js:')} ${l.msg}`);
    return { status: r.status, lines, codeCache: logged.find((l) => l.msg === 'phase load done')?.codeCache };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

describe('the bundled launcher (dist/cli.js, dist/launcher-main.cjs)', () => {
  it('is two bundles with position maps, and leaves every package with a native addon outside', () => {
    const withAddons = readdirSync(packagesDir).filter((d) => existsSync(join(packagesDir, d, 'binding.gyp')));
    expect(withAddons).toContain('libvirt');
    for (const file of [cliPath, mainPath]) {
      const code = readFileSync(file, 'utf8');
      expect(code).toContain('virt-launcher bundle (scripts/bundle.ts)');
      expect(existsSync(`${file}.positions.json`)).toBe(true);
      // An addon found relative to its package's module would be looked for beside dist/ instead.
      expect(code).not.toMatch(/build\/Release\/[\w-]+\.node/);
      for (const dir of withAddons) {
        const { name } = JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8')) as { name: string };
        if (code.includes(name)) expect(code).toMatch(new RegExp(`(from|import\\(|__vltImport\\()\\s*"${name}"`));
      }
    }
  });

  it('keeps gRPC, the protos and the main sequence out of the first file, which runs the second', () => {
    const first = readFileSync(cliPath, 'utf8');
    const second = readFileSync(mainPath, 'utf8');
    // esbuild names each bundled module in a comment: the first file must not contain what the daemon's spawn
    // need not wait for (its whole point), the second must (or the first file grew back into the whole launcher).
    for (const heavy of ['node_modules/@grpc/grpc-js/', 'dist/gen/kubevirt/cmd/', 'dist/main/launcher.js']) {
      expect(first).not.toContain(heavy);
      expect(second).toContain(heavy);
    }
    expect(first).toContain('"./launcher-main.cjs"');
    // Every import( of the second file goes through the loader's function (no vm option, no warning on stderr).
    expect(second).not.toMatch(/\bimport\(/);
    expect(second).toMatch(/__vltImport\("@virt-launcher\/converter"\)/);
    expect(first.length).toBeLessThan(second.length / 10);
  });

  it('logs the same lines with the same pos (module and line tsc emitted) as the unbundled entry', async () => {
    const [bundled, unbundled] = await Promise.all([logOf(cliPath), logOf(unbundledPath)]);
    expect(bundled.status).toBe(2);
    expect(unbundled.status).toBe(2);
    // The line named is the one in the module that logs it.
    const ready = bundled.lines.find((l) => l.endsWith(' Marked as ready'));
    const line = Number(/^server\.js:(\d+) /.exec(ready ?? '')?.[1]);
    const server = readFileSync(resolve(cliPath, '../cmd-server/server.js'), 'utf8').split('\n');
    expect(server[line - 1]).toContain('Marked as ready');
    // The phases finish in another order when the bundle loads faster: compare as sets of lines.
    expect([...bundled.lines].sort()).toEqual([...unbundled.lines].sort());
    // The build's cache fits this Node and the launcher's V8 flags: V8 took it (a refused one says 'rejected').
    expect(bundled.codeCache).toBe('accepted');
    expect(unbundled.codeCache).toBe('unbundled');
    expect(statSync(`${mainPath}.v8-cache`).mode & 0o777).toBe(0o644);
  });
});
