import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The JSON report lets tools/test-all.sh print one "N passed, N failed" line for the whole repo.
    reporters: ['default', ['json', { outputFile: '../../.cache/test-results/shared.json' }]],
  },
});
