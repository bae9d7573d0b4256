// The main sequence's bundle (dist/launcher-main.cjs) is run through V8's code cache: Node 20 keeps no compiled
// code for ES modules between runs, so every start parsed and compiled the 1.3 MiB bundle again (~20-25 ms of the
// launcher's main thread before ready, bench/DESIGN.md). A CommonJS bundle run as a `vm.Script` can take
// `cachedData`: bytecode written at build time by write-code-cache.ts after a training run, so the functions the
// start-up calls (gRPC's server, HTTP/2, the protos) are not compiled again either.
//
// V8 checks a cache against its own version and flags, but of the source only its length: the cache file starts
// with the SHA-256 of the bundle it was made from, and a cache of another bundle is never handed to V8. A cache that
// does not fit (another Node, other flags, a rebuilt bundle) is rejected and the bundle is compiled as before, only
// slower. `codeCache` says which it was.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** What happened to the cache: used, refused by V8 (it did not fit), or none beside the bundle. */
export type CodeCacheUse = 'accepted' | 'rejected' | 'absent';

/**
 * Runs `import()` for the bundle: inside a `vm.Script`, `import()` needs an experimental vm option on Node 20 (a
 * warning on stderr, the log stream), so the build rewrites the bundle's dynamic imports into calls of this
 * function, given by an ES module that resolves from the same directory.
 */
export type DynamicImport = (specifier: string) => Promise<unknown>;

/** The parameter the build renames the bundle's `import(` to (scripts/bundle.ts). */
export const DYNAMIC_IMPORT_PARAMETER = '__vltImport';

export interface CommonJsRun<T> {
  exports: T;
  codeCache: CodeCacheUse;
  script: Script;
}

/** The cache beside a bundle. */
export const codeCachePath = (bundle: string): string => `${bundle}.v8-cache`;

/**
 * A bundle for runCommonJsBundle is one function expression: the build writes this head on the bundle's first line
 * (no newline: line numbers, and with them the position map of log `pos`, stay as they are) and the tail at its
 * end. Wrapping it here instead would make a second 1.3 MiB string of the source at every start, garbage that
 * stays in the heap until a full collection (~1.3 MiB of RSS at ready, measured).
 */
export const BUNDLE_HEAD = `(function (exports, require, module, __filename, __dirname, ${DYNAMIC_IMPORT_PARAMETER}) {`;
export const BUNDLE_TAIL = '\n})';

/** A file that is not such a function expression (a plain script or module). */
export class NotABundleError extends Error {
  constructor(readonly file: string) {
    super(`${file}: not a bundle for runCommonJsBundle (it must evaluate to one function, scripts/bundle.ts)`);
    this.name = 'NotABundleError';
  }
}

const DIGEST_BYTES = 32;
const digestOf = (bundle: Buffer): Buffer => createHash('sha256').update(bundle).digest();

/** The cache's V8 data if the cache file was made from this very bundle; undefined if there is none. */
function readCache(path: string, bundle: Buffer): { data?: Buffer; stale: boolean } {
  let file: Buffer;
  try {
    file = readFileSync(path);
  } catch {
    return { stale: false };
  }
  const made = file.subarray(0, DIGEST_BYTES);
  if (file.length <= DIGEST_BYTES || !made.equals(digestOf(bundle))) return { stale: true };
  return { data: file.subarray(DIGEST_BYTES), stale: false };
}

/** The bundle's text; esbuild writes ASCII (non-ASCII is escaped), which latin1 decodes faster than UTF-8. */
const textOf = (bundle: Buffer): string => bundle.toString(isAscii(bundle) ? 'latin1' : 'utf8');

/** Compiles (through the cache when one fits) and runs a CommonJS bundle; returns its exports. */
export function runCommonJsBundle<T>(file: string, dynamicImport: DynamicImport): CommonJsRun<T> {
  const bundle = readFileSync(file);
  const cache = readCache(codeCachePath(file), bundle);
  const script = new Script(textOf(bundle), { filename: file, cachedData: cache.data });
  const codeCache: CodeCacheUse =
    cache.stale || script.cachedDataRejected ? 'rejected' : cache.data ? 'accepted' : 'absent';
  const module = { exports: {} as T };
  const run: unknown = script.runInThisContext();
  if (typeof run !== 'function') throw new NotABundleError(file);
  (run as (...args: unknown[]) => void)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    dynamicImport,
  );
  return { exports: module.exports, codeCache, script };
}

/**
 * Writes the cache beside a bundle: runs it, lets `train` call what the start-up calls, then saves the bytecode of
 * everything compiled so far. Written aside and renamed (a launcher starting meanwhile reads the old or the new),
 * mode 0644: the launcher may run as any user. Must run with the V8 flags the launcher runs with.
 */
export async function writeCodeCache<T>(
  file: string,
  dynamicImport: DynamicImport,
  train: (exports: T) => Promise<void>,
): Promise<number> {
  const target = codeCachePath(file);
  const tmp = `${target}.tmp`;
  const { exports, script } = runCommonJsBundle<T>(file, dynamicImport);
  await train(exports);
  const data = Buffer.concat([digestOf(readFileSync(file)), script.createCachedData()]);
  rmSync(tmp, { force: true }); // a leftover of an interrupted run keeps its own mode otherwise
  writeFileSync(tmp, data, { mode: 0o644 });
  renameSync(tmp, target);
  return data.length;
}
