// virt-tail: the `guest-console-log` sidecar. virt-controller runs it as `virt-tail --logfile
// <private dir>/<vmi uid>/virt-serial0-log` next to the launcher; it copies the serial console log to
// its stdout (so it lands in the pod's logs) until the pod ends, which the container runtime signals
// with SIGTERM. Exit codes (KubeVirt's): 1 without --logfile, 0 on SIGTERM/SIGINT. Unknown flags are
// ignored, as KubeVirt's virt-tail does, so a newer controller's extra flags never crash-loop the sidecar.
import { parseFlags, usage } from './flags.js';
import type { FlagSpecs } from './flags.js';
import { LogFollower } from './log-follower.js';
import { createLogger } from './log.js';
import type { ProgramIO } from './program-io.js';

const specs = {
  logfile: { kind: 'string', default: '', help: 'path of the log file to stream' },
  v: { kind: 'int32', default: 2, help: 'log verbosity' },
} satisfies FlagSpecs;

export async function runTail(argv: string[], io: ProgramIO, stop: AbortSignal): Promise<number> {
  const logger = createLogger('virt-tail', io.stderr);
  let parsed;
  try {
    parsed = parseFlags(specs, argv, { ignoreUnknown: true });
  } catch (err) {
    // Only a bad value of a known flag gets here (e.g. --v=x).
    logger.log('error', 'bad flags', { reason: (err as Error).message });
    return 1;
  }
  if (parsed.help) {
    io.stdout(usage('virt-tail', '--logfile PATH', specs));
    return 0;
  }
  if (parsed.values.logfile === '') {
    logger.log('error', 'the --logfile flag must be provided');
    return 1;
  }
  const follower = new LogFollower(parsed.values.logfile, {
    onLine: (line) => io.stdout(line + '\n'),
    onError: (err) => logger.log('warning', 'tail error', { reason: err.message }),
  });
  follower.start();
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await follower.stop();
  return 0;
}
