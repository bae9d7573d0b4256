import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // The JSON report lets tools/test-all.sh print one "N passed, N failed" line for the whole repo.
    reporters: ['default', ['json', { outputFile: '../../.cache/test-results/pod.json' }]],
  },
});
