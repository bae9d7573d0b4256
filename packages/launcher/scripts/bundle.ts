// `npm run build`, after tsc: bundles tsc's entry point and everything it loads into one file, dist/cli.js, so the launcher starts by parsing one file instead of resolving, reading and linking ~170
// modules (README, "Start-up"). Written beside it: dist/cli.js.positions.json, which makes every log line's `pos`
// name the module and line tsc emitted, as the unbundled program logs it (@virt-launcher/shared, position-map.ts).
//
// What stays outside the bundle, loaded from its own package as before:
// - every workspace package that ships a native addon: it finds its `.node` file relative to its own module
//   (`createRequire(import.meta.url)`), which inside a bundle would point next to dist/cli.js instead;
// - the role packages the launcher imports only lazily (after readiness): start-up need not even parse them;
// - @grpc/proto-loader: grpc-js requires it only for channelz/admin, which the launcher never enables.
import { build, type Plugin } from 'esbuild';
import { existsSync } from 'node:fs';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPositionMap, positionMapPath, type SourceMapV3 } from '@virt-launcher/shared';

const pkg = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(pkg, 'dist/cli.js');
const unbundled = join(pkg, 'dist/cli.unbundled.js');
const packagesDir = resolve(pkg, '..');
// The first line of the bundle: marks it (a second run without tsc must not bundle the bundle), and gives the CommonJS code inside (grpc-js) a `require` for Node's own modules.
const MARK = '/* virt-launcher bundle (scripts/bundle.ts) */';
const BANNER =
  MARK +
  " import { createRequire as __vltRequire } from 'node:module'; " +
  'const require = __vltRequire(import.meta.url);';

export class BundleError extends Error {
  constructor(
    readonly field: string,
    readonly value: string,
    reason: string,
  ) {
    super(`bundle: ${field} ${value}: ${reason}`);
    this.name = 'BundleError';
  }
}

const LAZY_ROLES = ['@virt-launcher/converter', '@virt-launcher/ephemeral-disk', '@virt-launcher/netsetup'];
const NEVER_LOADED = ['@grpc/proto-loader'];

/** Workspace packages with a binding.gyp: their addon must be found from their own files. */
async function packagesWithAddons(): Promise<string[]> {
  const out: string[] = [];
  for (const dir of await readdir(packagesDir)) {
    if (!existsSync(join(packagesDir, dir, 'binding.gyp'))) continue;
    const manifest = JSON.parse(await readFile(join(packagesDir, dir, 'package.json'), 'utf8')) as { name: string };
    out.push(manifest.name);
  }
  return out;
}

/**
 * tsc's modules end with a `sourceMappingURL` to their .ts sources; esbuild would follow it, and `pos` would name
 * .ts lines where the unbundled launcher names the emitted .js lines. Hiding the comment keeps them the same.
 */
const withoutInputSourceMaps: Plugin = {
  name: 'without-input-source-maps',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'),
      loader: 'js',
    }));
  },
};

/** Our modules (workspace packages' dist), whose lines a log `pos` may name; not libraries bundled with them. */
const ownSource = (source: string): boolean => !source.includes('node_modules/');

/**
 * tsc's entry, kept as dist/cli.unbundled.js (the same program unbundled, for comparisons and debugging). A second
 * run without tsc finds dist/cli.js a bundle already and bundles the kept entry again.
 */
async function unbundledEntry(): Promise<string> {
  const head = await readFile(entry, 'utf8').catch(() => {
    throw new BundleError('entry', entry, 'missing: run tsc -p tsconfig.lib.json first');
  });
  if (!head.includes(MARK)) {
    await writeFile(unbundled, head.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'), { mode: 0o755 });
    await rm(`${entry}.map`, { force: true }); // describes the unbundled entry, under a name the bundle now has
  } else if (!existsSync(unbundled)) {
    throw new BundleError('entry', entry, 'is a bundle and dist/cli.unbundled.js is missing: run tsc first');
  }
  return unbundled;
}

async function main(): Promise<void> {
  const input = await unbundledEntry();
  const external = [...(await packagesWithAddons()), ...LAZY_ROLES, ...NEVER_LOADED];
  const result = await build({
    entryPoints: [input],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    banner: { js: BANNER },
    sourcemap: 'external',
    sourcesContent: false,
    outfile: entry,
    write: false,
    logLevel: 'warning',
    plugins: [withoutInputSourceMaps],
  });
  const code = result.outputFiles.find((f) => f.path === entry);
  const map = result.outputFiles.find((f) => f.path === `${entry}.map`);
  if (!code || !map) throw new BundleError('outputs', result.outputFiles.map((f) => f.path).join(','), 'incomplete');
  const built = buildPositionMap(JSON.parse(map.text) as SourceMapV3, { keep: ownSource, code: code.text });
  // The entry's lines are cli.js's lines, as the unbundled launcher logs them.
  const files = built.files.map((f) => (f === basename(unbundled) ? basename(entry) : f));
  const positions = { ...built, files, bundleBytes: code.contents.length };
  // Written aside and renamed: a launcher starting meanwhile (another test) reads the old file or the new, whole.
  await writeFile(`${entry}.tmp`, code.contents, { mode: 0o755 });
  await writeFile(positionMapPath(entry), JSON.stringify(positions));
  await rename(`${entry}.tmp`, entry);
  process.stderr.write(
    `bundle: dist/cli.js ${(code.contents.length / 1024).toFixed(0)} KiB, ${files.length} modules mapped, ` +
      `external: ${external.join(', ')}\n`,
  );
}

await main();
