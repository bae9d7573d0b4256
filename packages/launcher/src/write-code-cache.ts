// `node dist/write-code-cache.js`: writes dist/launcher-main.cjs.v8-cache (main/code-cache.ts) with the Node that
// runs it. The build runs it with the repository's Node; the image's build (tools/image/build.sh) runs it again
// with the Node the image ships, since V8 refuses a cache another version wrote.
// The launcher's V8 flags first: a cache written under other flags is refused as well.
import './main/young-generation.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeCachePath, writeCodeCache } from './main/code-cache.js';
import type * as MainSequenceModule from './main/launcher.js';
import { setLogSink } from './log.js';

const bundle = fileURLToPath(new URL('./launcher-main.cjs', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'vlt-code-cache-'));
try {
  setLogSink(() => undefined); // the training server's start and stop lines are not news in a build's output
  const bytes = await writeCodeCache<typeof MainSequenceModule>(
    bundle,
    (specifier) => import(specifier),
    (main) => main.exerciseStartUpPaths(dir),
  );
  process.stderr.write(`code cache: ${codeCachePath(bundle)}, ${bytes} bytes, Node ${process.version}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
