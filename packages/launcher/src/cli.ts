#!/usr/bin/env node
// virt-launcher: the compute container's main process. Parses KubeVirt's flags, runs the main sequence and
// exits 0 on a clean stop; a panic (KubeVirt's Go panic) exits 2.
import { parseFlags, usage, wantsHelp } from './flags.js';
import { log, setVerbosity } from './log.js';
import { runLauncher } from './main/launcher.js';
import { errorMessage } from './errors.js';

async function main(): Promise<void> {
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(`${usage()}\n`);
    process.exit(0);
  }
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (err) {
    log.error('invalid command line', { reason: errorMessage(err) });
    process.exit(2);
  }
  setVerbosity(flags.verbosity);
  try {
    await runLauncher(flags);
    log.info('Exiting...');
    process.exit(0);
  } catch (err) {
    log.error('virt-launcher failed', { reason: errorMessage(err) });
    process.exit(2);
  }
}

void main();
