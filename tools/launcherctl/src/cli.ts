#!/usr/bin/env node
// launcherctl: see run.ts for the commands and exit codes.
import { runLauncherctl } from './run.js';

const code = await runLauncherctl(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = code;
