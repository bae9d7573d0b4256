#!/usr/bin/env node
// The committed entry point of `virt-launcher`. npm links a package's bins when it installs, before any
// build, so a bin pointing straight at dist/ gets no link in a fresh clone and `npx virt-launcher` would
// look for a package of that name in the registry. This file always exists; the program is dist/cli.js.
// The V8 flags in dist/cli.js's shebang apply only when that file is executed itself, not through here.
// bin/virt-launcher (bash) runs this file with argv[0] virt-launcher, the name KubeVirt's pod shows in `ps`.
import { existsSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write(
    'virt-launcher: ' + fileURLToPath(cli) + ' is missing: run `npm run build` (or `bash tools/setup-host.sh`) first\n',
  );
  process.exit(1);
}
// The kernel's own name of the process (comm: `ps -o comm`, pgrep, top) is the executable's, node: it becomes the
// launcher's too. Unlike process.title, writing comm leaves argv (the flags `ps` shows) as it is.
try {
  writeFileSync('/proc/self/comm', 'virt-launcher');
} catch {
  // A /proc that refuses the write changes nothing the launcher does.
}
await import(cli.href);
