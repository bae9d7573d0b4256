// The fast unit layer (`npm run test:unit`): every package's and tool's tests except the real-stack ones, in one
// vitest run that needs no root, no libvirt daemon, no network namespace and no guest. `npm test` still runs both
// layers through each package's own vitest config (CONTRIBUTING.md, "Two test layers").
//
// A real-stack test is named `*.stack.test.ts` (or the older `*.netns.test.ts` / `*.e2e.test.ts`): it needs root, a
// daemon, a namespace or a guest, so only the package's own vitest config (`npm test`) runs it.
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The unit layer may run as an unprivileged user that cannot write node_modules/.vite.
  cacheDir: join(tmpdir(), 'vlt-vitest-unit-cache'),
  test: {
    include: ['packages/*/src/**/*.test.ts', 'tools/*/src/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '**/*.stack.test.ts', '**/*.netns.test.ts', '**/*.e2e.test.ts'],
    // Files and the tests in each run in a random order, so a test that leans on another's leftovers fails here.
    // Vitest prints the seed ("Running tests with seed …"); `npm run test:unit -- --sequence.seed=N` replays it.
    sequence: { shuffle: true },
    // One module graph per worker instead of one per file: about 60% less CPU for this layer (/usr/bin/time on the
    // loaded 2-core machine: 125-162 s of CPU isolated, 64 s shared). The random order above, and the package
    // configs (which still isolate each file), catch a test that leaks state into the next file.
    isolate: false,
    // Vitest leaves one core free by default; unit tests wait mostly on small child processes, so use them all.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
