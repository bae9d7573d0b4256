// The fast unit layer (`npm run test:unit`): every package's and tool's tests except the real-stack ones, in one
// vitest run that needs no root, no libvirt daemon, no network namespace and no guest. `npm test` still runs both
// layers through each package's own vitest config (CONTRIBUTING.md, "Two test layers").
//
// A real-stack test is named `*.stack.test.ts` (or the older `*.netns.test.ts` / `*.e2e.test.ts`). The files
// listed in `notYetRenamed` are real-stack tests whose names predate that convention; a package that renames one
// removes it from the list.
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

const notYetRenamed = [
  'packages/contracts/src/package-graph.test.ts', // runs nx and eslint over the workspace (writes .nx/)
  'packages/converter/src/acpi.test.ts', // private libvirtd
  'packages/converter/src/completeness.test.ts', // private libvirtd
  'packages/converter/src/libvirt.test.ts', // private libvirtd
  'packages/dhcp/src/v4/fit.test.ts', // udhcpc against the server
  'packages/ephemeral-disk/src/iso.test.ts', // as non-root: EACCES removing the read-only files xorriso extracted
  'packages/libvirt/src/integration.test.ts', // private libvirtd
  'packages/monitor/src/cli.burst.test.ts', // PID namespaces (root)
  'packages/monitor/src/cli.early-signal.test.ts', // PID namespaces (root)
  'packages/monitor/src/cli.inspector.test.ts', // PID namespaces (root)
  'packages/monitor/src/cli.pid1.test.ts', // PID namespaces (root)
  'tools/demo-guest/src/boot.test.ts', // builds and boots a guest
  'tools/image/src/image.test.ts', // builds the image, libvirtd
  'tools/launcherctl/src/real-launcher.test.ts', // the real launcher
  'tools/pod-programs/src/real-launcher.test.ts', // the real launcher
  'tools/pod/src/hypervisor.test.ts', // QEMU in a private /dev (unshare, root)
];

export default defineConfig({
  // The unit layer may run as an unprivileged user that cannot write node_modules/.vite.
  cacheDir: join(tmpdir(), 'vlt-vitest-unit-cache'),
  test: {
    include: ['packages/*/src/**/*.test.ts', 'tools/*/src/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
      '**/dist/**',
      '**/*.stack.test.ts',
      '**/*.netns.test.ts',
      '**/*.e2e.test.ts',
      ...notYetRenamed,
    ],
    // Vitest leaves one core free by default; unit tests wait mostly on small child processes, so use them all.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
