// Loads the main sequence (main/launcher.ts). In the bundled launcher that is dist/launcher-main.cjs, run through
// V8's code cache (code-cache.ts); unbundled (tsc's dist, the tests) it is the module itself.
import { fileURLToPath } from 'node:url';
import { runCommonJsBundle } from './code-cache.js';
import type { CodeCacheUse } from './code-cache.js';
import type * as MainSequenceModule from './launcher.js';

// The main bundle's name beside dist/cli.js, defined by scripts/bundle.ts for the first file only.
declare const __VLT_MAIN_BUNDLE__: string | undefined;

type MainSequence = typeof MainSequenceModule;

export interface LoadedMainSequence {
  runLauncher: MainSequence['runLauncher'];
  /** The code cache's use, or 'unbundled' when the modules were imported one by one. */
  codeCache: CodeCacheUse | 'unbundled';
}

/** `import()` from here: the bundle's externals (the role packages) resolve from dist/, as they did before. */
const importHere = (specifier: string): Promise<unknown> => import(specifier);

export async function loadMainSequence(): Promise<LoadedMainSequence> {
  if (typeof __VLT_MAIN_BUNDLE__ === 'string') {
    const file = fileURLToPath(new URL(__VLT_MAIN_BUNDLE__, import.meta.url));
    const { exports, codeCache } = runCommonJsBundle<MainSequence>(file, importHere);
    return { runLauncher: exports.runLauncher, codeCache };
  }
  const { runLauncher } = await import('./launcher.js');
  return { runLauncher, codeCache: 'unbundled' };
}
