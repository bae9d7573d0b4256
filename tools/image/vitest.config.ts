import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Building the image from scratch downloads and unpacks a Debian root: minutes, not seconds.
    testTimeout: 900_000,
    hookTimeout: 900_000,
    reporters: ['default', ['json', { outputFile: '../../.cache/test-results/image.json' }]],
  },
});
