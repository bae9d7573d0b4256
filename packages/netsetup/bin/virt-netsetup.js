#!/usr/bin/env node
// The committed entry point of `virt-netsetup`. npm links a package's bins when it installs, before any
// build, so a bin pointing straight at dist/ gets no link in a fresh clone and `npx virt-netsetup` would
// look for a package of that name in the registry. This file always exists; the program is
// dist/virt-netsetup.js, dist/cli.js and everything it imports bundled into one file by `npm run build`
// (one file to read and link instead of ~45 modules: docs/performance.md).
import { existsSync } from 'node:fs';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const cli = new URL('../dist/virt-netsetup.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write(
    'virt-netsetup: ' + fileURLToPath(cli) + ' is missing: run `npm run build` (or `bash tools/setup-host.sh`) first\n',
  );
  process.exit(1);
}
await import(cli.href);
