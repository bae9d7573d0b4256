import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // A cold build downloads ~28 MB of .deb files; a TCG boot takes ~8 s on an idle core, far more on a busy one.
    testTimeout: 300_000,
    hookTimeout: 600_000,
    reporters: ['default', ['json', { outputFile: '../../.cache/test-results/demo-guest.json' }]],
  },
});
