// `npm run build`, after tsc: bundles tsc's output into two files, so the launcher starts by parsing two files
// instead of resolving, reading and linking ~170 modules (README, "Start-up"):
// - dist/cli.js, the first file: the flags, the logger and the early steps (main/early-start.ts), everything the
//   launcher needs to spawn the libvirt daemons, ~100 KiB. The daemon starts while Node reads the rest.
// - dist/launcher-main.cjs: the main sequence (main/launcher.ts) and all it imports, gRPC and the protos among them
//   (~1.3 MiB), loaded by the first file right after the spawn. Both are loaded at start-up, never later, so a
//   dist/ rewritten under a running launcher (another build) cannot make it miss a file it has yet to load.
//   CommonJS, so that it can run through V8's code cache (main/code-cache.ts): dist/write-code-cache.js writes
//   dist/launcher-main.cjs.v8-cache once both files are in place.
// Modules both files use (the logger, the paths) are in each; what crosses between them is passed as arguments
// (the flags, the early start's handles), never module state (main/launcher.ts sets its logger's verbosity again).
// Written beside each: a `.positions.json`, which makes every log line's `pos` name the module and line tsc
// emitted, as the unbundled program logs it (@virt-launcher/shared, position-map.ts).
//
// What stays outside both, loaded from its own package as before:
// - every workspace package that ships a native addon: it finds its `.node` file relative to its own module
//   (`createRequire(import.meta.url)`), which inside a bundle would point next to dist/ instead;
// - the role packages the launcher imports only lazily (after readiness): start-up need not even parse them;
// - @grpc/proto-loader: grpc-js requires it only for channelz/admin, which the launcher never enables.
import { build, type Plugin } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPositionMap, positionMapPath, type SourceMapV3 } from '@virt-launcher/shared';
import { BUNDLE_HEAD, BUNDLE_TAIL, DYNAMIC_IMPORT_PARAMETER } from '../src/main/code-cache.js';

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
// The main bundle is CommonJS inside one function expression (main/code-cache.ts gives it `require` and the rest).
const CJS_BANNER = `${MARK} ${BUNDLE_HEAD}`;

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

/** tsc's main sequence module (loaded by main/load-main.ts) and the second file it becomes. */
const mainSequence = join(pkg, 'dist/main/launcher.js');
const mainBundle = join(pkg, 'dist/launcher-main.cjs');
const codeCacheWriter = join(pkg, 'dist/write-code-cache.js');
// What must never reach the first file: it would make Node parse (and load the builtins of) the whole launcher
// before the daemon is spawned, which is what the split is for.
const NOT_IN_FIRST_FILE = ['@grpc/grpc-js', '@bufbuild/protobuf', 'dist/gen/', 'dist/hooks/', 'dist/cmd-server/'];

/**
 * In the first file, main/load-main.ts runs the second file (`__VLT_MAIN_BUNDLE__`, defined below); its import of
 * the unbundled main sequence, the branch tsc's dist takes, stays an import of tsc's module and is never reached.
 */
const mainSequenceApart: Plugin = {
  name: 'main-sequence-apart',
  setup(b) {
    b.onResolve({ filter: /\/launcher\.js$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.endsWith('/main/load-main.js')
        ? { path: './main/launcher.js', external: true }
        : undefined,
    );
  },
};

/**
 * `import()` in a `vm.Script` needs an experimental option on Node 20 (a warning on stderr): the main bundle's
 * dynamic imports (only of the external role packages) call the loader's function instead. Each is counted, so
 * that an `import(` the rewrite missed fails the build instead of the first Sync.
 */
function rewriteDynamicImports(code: string, expected: number): string {
  let found = 0;
  const rewritten = code.replace(/\bimport\((?=")/g, () => {
    found += 1;
    return `${DYNAMIC_IMPORT_PARAMETER}(`;
  });
  if (found !== expected || /\bimport\(/.test(rewritten)) {
    throw new BundleError('dist/launcher-main.cjs', `import( x${found}`, `expected ${expected} dynamic imports`);
  }
  return rewritten;
}

interface Bundled {
  code: Uint8Array;
  positions: object;
  inputs: string[];
}

interface BundleOptions {
  external: string[];
  plugins?: Plugin[];
  format: 'esm' | 'cjs';
  define?: Record<string, string>;
}

async function bundle(input: string, outfile: string, o: BundleOptions): Promise<Bundled> {
  const result = await build({
    entryPoints: [input],
    bundle: true,
    platform: 'node',
    format: o.format,
    target: 'node20',
    external: o.external,
    define: o.define,
    banner: { js: o.format === 'esm' ? BANNER : CJS_BANNER },
    footer: o.format === 'esm' ? undefined : { js: BUNDLE_TAIL },
    sourcemap: 'external',
    sourcesContent: false,
    outfile,
    write: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [withoutInputSourceMaps, ...(o.plugins ?? [])],
  });
  const out = result.outputFiles.find((f) => f.path === outfile);
  const map = result.outputFiles.find((f) => f.path === `${outfile}.map`);
  if (!out || !map) throw new BundleError('outputs', result.outputFiles.map((f) => f.path).join(','), 'incomplete');
  const dynamicImports = Object.values(result.metafile.outputs)
    .flatMap((m) => m.imports)
    .filter((i) => i.kind === 'dynamic-import' && i.external).length;
  const text = o.format === 'cjs' ? rewriteDynamicImports(out.text, dynamicImports) : out.text;
  const code = new TextEncoder().encode(text);
  const built = buildPositionMap(JSON.parse(map.text) as SourceMapV3, { keep: ownSource, code: text });
  // The entry's lines are cli.js's lines, as the unbundled launcher logs them.
  const files = built.files.map((f) => (f === basename(unbundled) ? basename(entry) : f));
  const inputs = Object.keys(result.metafile.inputs);
  return { code, positions: { ...built, files, bundleBytes: code.length }, inputs };
}

/** Written aside and renamed: a launcher starting meanwhile (another test) reads the old file or the new, whole. */
async function install(outfile: string, b: Bundled): Promise<void> {
  await writeFile(`${outfile}.tmp`, b.code, { mode: 0o755 });
  await writeFile(`${positionMapPath(outfile)}.tmp`, JSON.stringify(b.positions));
  await rename(`${positionMapPath(outfile)}.tmp`, positionMapPath(outfile));
  await rename(`${outfile}.tmp`, outfile);
}

async function main(): Promise<void> {
  const input = await unbundledEntry();
  const external = [...(await packagesWithAddons()), ...LAZY_ROLES, ...NEVER_LOADED];
  const first = await bundle(input, entry, {
    external,
    format: 'esm',
    plugins: [mainSequenceApart],
    define: { __VLT_MAIN_BUNDLE__: JSON.stringify(`./${basename(mainBundle)}`) },
  });
  const leaked = first.inputs.filter((i) => NOT_IN_FIRST_FILE.some((n) => i.includes(n)));
  if (leaked.length > 0) {
    throw new BundleError(
      'dist/cli.js',
      leaked.slice(0, 3).join(', '),
      'the first file must not load these (main/early-start.ts)',
    );
  }
  const second = await bundle(mainSequence, mainBundle, { external, format: 'cjs' });
  // The second file first: a first file on disk always finds the second it loads. The old cache cannot fit the
  // new bundle (V8 would refuse it); it goes before the bundle changes, the new one is written once both are in.
  await rm(`${mainBundle}.v8-cache`, { force: true });
  await install(mainBundle, second);
  await install(entry, first);
  execFileSync(process.execPath, [codeCacheWriter], { stdio: ['ignore', 'inherit', 'inherit'] });
  const kib = (b: Bundled) => `${(b.code.length / 1024).toFixed(0)} KiB`;
  process.stderr.write(
    `bundle: dist/cli.js ${kib(first)} (${first.inputs.length} modules), dist/launcher-main.cjs ${kib(second)} ` +
      `(${second.inputs.length} modules), external: ${external.join(', ')}\n`,
  );
}

await main();
