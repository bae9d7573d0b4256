// The monitor's program once its signal gate is listening (cli.ts installs the gate first and
// only then loads this module and everything it imports).
import { parseArgs, resolveVerbosity, USAGE, wantsHelp } from './args.js';
import { closeInspector } from './inspector.js';
import { createLogger } from './log.js';
import { runMonitor } from './monitor.js';
import type { SignalGate } from './signals.js';

export async function main(signals: SignalGate): Promise<never> {
  const env = process.env;
  if (wantsHelp(process.argv.slice(2))) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  let log = createLogger();
  try {
    const inspector = await closeInspector();
    const args = parseArgs(process.argv.slice(2), env);
    const { verbosity, warning } = resolveVerbosity(args.verbosity, env);
    log = createLogger({ verbosity });
    if (inspector.wasOpen) log.warning(`closed the inspector ${inspector.url} opened by a Node option`);
    if (warning) log.warning(warning);
    const code = await runMonitor({
      command: args.command,
      args: args.args,
      keepAfterFailure: args.keepAfterFailure,
      containerDiskDir: args.containerDiskDir,
      qemuStopTimeoutSeconds: args.qemuStopTimeoutSeconds,
      logger: log,
      signals,
      istio: {
        readyUrl: env.VIRT_LAUNCHER_MONITOR_ISTIO_READY_URL,
        quitUrl: env.VIRT_LAUNCHER_MONITOR_ISTIO_QUIT_URL,
      },
      passtLog: env.VIRT_LAUNCHER_MONITOR_PASST_LOG,
      qemuLogDir: env.VIRT_LAUNCHER_MONITOR_QEMU_LOG_DIR,
    });
    process.exit(code);
  } catch (error) {
    log.error('monitoring virt-launcher failed', { reason: error });
    process.exit(1);
  }
}
