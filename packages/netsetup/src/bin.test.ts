// `virt-netsetup` as users run it: the committed bin loads the one-file bundle `npm run build` makes, and nothing
// else of ours or of node_modules is read at start-up (the per-module cost was most of the CLI's start-up).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/virt-netsetup.js', import.meta.url));
const BUNDLE = fileURLToPath(new URL('../dist/virt-netsetup.js', import.meta.url));

// A loader hook, given to the child by --import, that names every file: module the child loads.
const HOOK = `export async function load(url, context, next) {
  if (url.startsWith('file:')) process.stderr.write('loaded ' + url + '\\n');
  return next(url, context);
}`;
const REGISTER = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function bin(args: string[], nodeArgs: string[] = []): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs, BIN, ...args], (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

describe('the virt-netsetup bin', () => {
  it('loads exactly two files of its own: the bin and the bundle', async () => {
    const r = await bin(
      ['masquerade', '--netns', 'vlt-netsetup-none', '--pod-iface', 'eth0'],
      ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`],
    );
    const loaded = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('loaded '))
      .map((l) => fileURLToPath(l.slice('loaded '.length)));
    expect(loaded).toEqual([BIN, BUNDLE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('virt-netsetup: network namespace "vlt-netsetup-none" does not exist');
  });

  it('the bundle imports nothing but Node built-ins, statically or lazily', async () => {
    const text = await readFile(BUNDLE, 'utf8');
    const specifiers = [...text.matchAll(/^import\s[^;]*?from\s*"([^"]+)";$|\bimport\(\s*"([^"]+)"\s*\)/gm)].map(
      (m) => m[1] ?? m[2],
    );
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((s) => !s!.startsWith('node:'))).toEqual([]);
  });

  it('--help prints both usages: the bridge command, loaded lazily, is inside the bundle', async () => {
    const r = await bin(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/virt-netsetup masquerade --netns NAME/);
    expect(r.stdout).toMatch(/virt-netsetup bridge --netns NAME/);
  });

  it('a usage error exits 2 with one line and the usage, as the unbundled CLI does', async () => {
    const r = await bin(['bridge', '--netns']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(/^virt-netsetup: /);
    expect(r.stderr).toMatch(/virt-netsetup bridge --netns NAME/);
    expect(r.stderr).not.toMatch(/virt-netsetup masquerade --netns NAME/);
  });
});
