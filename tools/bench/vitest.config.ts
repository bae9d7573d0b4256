import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: '../../.cache/test-results/bench.json' }]],
  },
});
