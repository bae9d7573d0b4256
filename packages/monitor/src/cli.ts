#!/usr/bin/env -S node --max-old-space-size=16 --max-semi-space-size=1 --v8-pool-size=0
// virt-launcher-monitor [flags] [-- COMMAND [ARGS...]]
// The shebang caps the V8 heap: this process lives as long as the VM, so its footprint counts.
// Imports are only what the monitor itself needs; node:http is loaded at exit by the istio step.
import { parseArgs, resolveVerbosity, USAGE, wantsHelp } from './args.js';
import { createLogger } from './log.js';
import { runMonitor } from './monitor.js';

const env = process.env;
if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
let log = createLogger();
try {
  const args = parseArgs(process.argv.slice(2), env);
  const { verbosity, warning } = resolveVerbosity(args.verbosity, env);
  log = createLogger({ verbosity });
  if (warning) log.warning('cli.ts', warning);
  const code = await runMonitor({
    command: args.command,
    args: args.args,
    keepAfterFailure: args.keepAfterFailure,
    containerDiskDir: args.containerDiskDir,
    qemuStopTimeoutSeconds: args.qemuStopTimeoutSeconds,
    logger: log,
    istio: {
      readyUrl: env.VIRT_LAUNCHER_MONITOR_ISTIO_READY_URL,
      quitUrl: env.VIRT_LAUNCHER_MONITOR_ISTIO_QUIT_URL,
    },
    passtLog: env.VIRT_LAUNCHER_MONITOR_PASST_LOG,
    qemuLogDir: env.VIRT_LAUNCHER_MONITOR_QEMU_LOG_DIR,
  });
  process.exit(code);
} catch (error) {
  log.error('cli.ts', 'monitoring virt-launcher failed', error);
  process.exit(1);
}
