#!/usr/bin/env -S node --max-old-space-size=48 --max-semi-space-size=1 --v8-pool-size=0
// virt-launcher: the compute container's main process. Parses KubeVirt's flags, runs the main sequence and
// exits 0 on a clean stop; a panic (KubeVirt's Go panic) exits 2.
// The shebang caps the V8 heap (young generation 1 MiB per semi-space): this process lives as long as the VM.
import { parseFlags, usage, wantsHelp } from './flags.js';
import { log, setVerbosity } from './log.js';
import { errorMessage } from './errors.js';
import { preloadBinding, startEarly, timed } from './main/early-start.js';

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
    // Spawn the libvirt daemons first, then load gRPC, the protos and the binding while they start: a static
    // import of the main sequence would make the daemons wait for all of that to be parsed.
    const early = startEarly(flags);
    await early.daemons;
    preloadBinding();
    const { runLauncher } = await timed('load', () => import('./main/launcher.js'));
    await runLauncher(flags, early);
    log.info('Exiting...');
    process.exit(0);
  } catch (err) {
    log.error('virt-launcher failed', { reason: errorMessage(err) });
    process.exit(2);
  }
}

void main();
