#!/usr/bin/env node
// virt-launcher: the compute container's main process. Parses KubeVirt's flags, runs the main sequence and
// exits 0 on a clean stop; a panic (KubeVirt's Go panic) exits 2.
// No V8 flags in the shebang: the pod runs `node cli.js`, where a shebang's flags never apply, and the 48 MB heap
// cap they set made a large (still accepted) Sync an out-of-memory crash. Requests are capped at 4 MiB by the cmd
// server instead. The one V8 setting that pays (the young generation's size) is set at run time by
// main/young-generation.ts, so it applies however the launcher is started.
import '@virt-launcher/shared/no-inspector';
import './main/young-generation.js';
import { constants } from 'node:os';
import { parseFlags, usage, wantsHelp } from './flags.js';
import { log, setVerbosity } from './log.js';
import { errorMessage } from './errors.js';
import { startEarly, timed } from './main/early-start.js';
import { loadMainSequence } from './main/load-main.js';
import { isStoppedBySignal } from './main/signals.js';

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
    // Spawn the libvirt daemons first, then load gRPC, the protos and the main sequence while a worker thread maps
    // the binding's libraries (early-start.ts); the binding and the handshake with the daemon follow. A static
    // import of the main sequence would make the daemons wait for all of it to be parsed.
    const early = startEarly(flags);
    await early.daemons;
    const { runLauncher } = await timed('load', loadMainSequence, (m) => ({ codeCache: m.codeCache }));
    await runLauncher(flags, early);
    log.info('Exiting...');
    process.exit(0);
  } catch (err) {
    if (isStoppedBySignal(err)) {
      // Cleaned up already; now end as an untrapped signal would (KubeVirt's launcher before it is ready).
      log.info('Exiting...', { signal: err.signal });
      process.removeAllListeners(err.signal);
      process.kill(process.pid, err.signal);
      // Should the default action not end us (it always does for the trapped signals), exit as a shell reports it.
      setTimeout(() => process.exit(128 + (constants.signals[err.signal as NodeJS.Signals] ?? 0)), 1000);
      return;
    }
    log.error('virt-launcher failed', { reason: errorMessage(err) });
    process.exit(2);
  }
}

void main();
