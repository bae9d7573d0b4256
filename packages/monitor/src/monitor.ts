// runMonitor: the whole life of the container's PID 1, as a pipeline of named steps:
// (signals held from the start) -> start reaper -> spawn COMMAND -> deliver held signals and
// forward later ones -> wait for its exit -> dump logs ->
// stop surviving QEMU -> stop istio-proxy -> remove container-disk sockets -> exit code.
import { spawn, type ChildProcess } from 'node:child_process';
import { CommandStartError } from './errors.js';
import { withoutInspectorOptions } from './inspector.js';
import type { IstioOptions } from './istio.js';
import { createLogger, type Logger } from './log.js';
import { loadAddon } from './native.js';
import { OrphanReaper } from './reaper.js';
import { ReapLog } from './reap-log.js';
import { installSignalGate, type SignalGate } from './signals.js';
import { DEFAULT_CONTAINER_DISK_DIR, DEFAULT_QEMU_STOP_TIMEOUT_SECONDS } from './args.js';

export interface MonitorOptions {
  command: string;
  args?: string[];
  keepAfterFailure?: boolean;
  containerDiskDir?: string;
  qemuStopTimeoutSeconds?: number;
  logger?: Logger;
  /** false skips the istio-proxy step entirely. */
  istio?: IstioOptions | false;
  passtLog?: string;
  qemuLogDir?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * The signal gate installed when the process started (cli.ts does so first thing); without
   * one, runMonitor installs its own, so signals before that moment are not held.
   */
  signals?: SignalGate;
}

export { FORWARDED_SIGNALS } from './signals.js';
/** Exit code used when COMMAND died from a signal (Go's os.Exit(-1)). */
export const SIGNALLED_EXIT_CODE = 255;
const CAP_NET_BIND_SERVICE = 10;

interface ChildOutcome {
  code: number;
  signal: NodeJS.Signals | null;
}

function waitForExit(child: ChildProcess): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new CommandStartError(child.spawnfile, error)));
    child.once('exit', (code, signal) => resolve({ code: code ?? SIGNALLED_EXIT_CODE, signal }));
  });
}

/** Best effort: lets a non-root launcher bind port 67 (DHCP), as KubeVirt's ambient caps do. */
function grantNetBindService(log: Logger): void {
  if (!loadAddon().raiseAmbientCapability(CAP_NET_BIND_SERVICE)) {
    log.v(3).info('could not raise CAP_NET_BIND_SERVICE as ambient capability');
  }
}

/** Spawns COMMAND, forwards termination signals to it, resolves with its exit code. */
async function runCommand(
  options: MonitorOptions,
  log: Logger,
  reaper: OrphanReaper,
  signals: SignalGate,
): Promise<number> {
  grantNetBindService(log);
  const { env, removed } = withoutInspectorOptions(options.env ?? process.env);
  if (removed.length > 0) log.warning(`removed ${removed.join(' ')} from NODE_OPTIONS`);
  const child = spawn(options.command, options.args ?? [], { stdio: 'inherit', env });
  // Synchronously after spawn, before any event (SIGCHLD included) can run a scan.
  if (child.pid !== undefined) reaper.protect(child.pid);
  // A later 'error' (a failed kill) must be logged, not crash PID 1 as an unhandled event.
  child.on('error', (error) => {
    if (child.pid !== undefined) log.error('error from virt-launcher process', { reason: error });
  });
  // Signals held since start-up go to the child now. Forwarding stays installed until the monitor
  // returns, like KubeVirt's signal goroutine: a late signal is logged instead of killing a
  // non-PID-1 monitor before QEMU got its SIGTERM.
  signals.attach(child, log);
  try {
    const outcome = await waitForExit(child);
    log.info('Reaped Launcher main pid');
    if (outcome.signal !== null || outcome.code !== 0) {
      const detail = outcome.signal ? `-1 (killed by ${outcome.signal})` : String(outcome.code);
      log.info(`dirty virt-launcher shutdown: exit-code ${detail}`);
    }
    return outcome.code;
  } finally {
    if (child.pid !== undefined) reaper.release(child.pid);
  }
}

// The shutdown steps (cleanup, qemu, istio) are imported when the launcher has exited: the
// monitor spends the VM's whole life waiting, and code it does not load costs no memory.
async function logDumps(options: MonitorOptions, log: Logger): Promise<void> {
  const { dumpLogs } = await import('./cleanup.js');
  dumpLogs({
    passtLog: options.passtLog,
    qemuLogDir: options.qemuLogDir,
    announce: (file) => log.info(`dump log file: ${file}`),
    line: (_file, text) => log.info(text),
    onDirError: (dir, error) => log.error(`failed to read qemu log directory ${dir}`, { reason: error }),
  });
}

async function stopQemu(options: MonitorOptions, log: Logger, reaper: OrphanReaper): Promise<number | undefined> {
  const { stopQemuSurvivors } = await import('./qemu.js');
  const outcome = await stopQemuSurvivors({
    timeoutSeconds: options.qemuStopTimeoutSeconds ?? DEFAULT_QEMU_STOP_TIMEOUT_SECONDS,
    beforePoll: () => reaper.scan(),
    onFound: (found) => log.info(`Killing QEMU gracefully. pids ${found.map((q) => q.pid).join(',')}`),
    onKill: (left) => log.warning(`QEMU still alive after grace period, SIGKILL ${left.map((q) => q.pid).join(',')}`),
  });
  return outcome === 'killed' ? 1 : undefined;
}

async function removeSockets(dir: string, log: Logger): Promise<void> {
  const { removeContainerDiskSockets } = await import('./cleanup.js');
  try {
    for (const path of removeContainerDiskSockets(dir)) log.v(3).info(`removed ${path}`);
  } catch (error) {
    log.error(`could not clean up ephemeral disk directory: ${dir}`, { reason: error });
  }
}

async function stopIstio(options: MonitorOptions, log: Logger): Promise<void> {
  if (options.istio === false) return;
  const { terminateIstioProxy } = await import('./istio.js');
  await terminateIstioProxy({
    ...options.istio,
    log: (level, msg) => (level === 'error' ? log.error(msg) : log.info(msg)),
  });
}

/** Blocks forever (the debugging aid of --keep-after-failure); the reaper keeps working. */
function blockForever(): Promise<never> {
  return new Promise(() => {
    setInterval(() => undefined, 1 << 30);
  });
}

/** Runs COMMAND under the monitor and resolves with the exit code the monitor should exit with. */
export async function runMonitor(options: MonitorOptions): Promise<number> {
  const log = options.logger ?? createLogger();
  const signals = options.signals ?? installSignalGate();
  signals.setLogger(log);
  const reapLog = new ReapLog(log);
  const reaper = new OrphanReaper({ onReaped: (r) => reapLog.record(r) });
  reaper.start();
  const cleanups: (() => void)[] = [() => signals.close(), () => reaper.stop()];
  let exitCode: number;
  let failed = false;
  try {
    exitCode = await runCommand(options, log, reaper, signals);
    await logDumps(options, log);
    exitCode = (await stopQemu(options, log, reaper)) ?? exitCode;
  } catch (error) {
    failed = true;
    exitCode = 1;
    const msg = error instanceof CommandStartError ? 'failed to run virt-launcher' : 'monitoring virt-launcher failed';
    log.error(msg, { reason: error });
  }
  await stopIstio(options, log);
  await removeSockets(options.containerDiskDir ?? DEFAULT_CONTAINER_DISK_DIR, log);
  reapLog.flush();
  if (options.keepAfterFailure && (exitCode !== 0 || failed)) {
    log.info('keeping virt-launcher container alive since --keep-after-failure is set to true');
    return blockForever();
  }
  reaper.scan();
  reapLog.flush();
  cleanups.reverse().forEach((cleanup) => cleanup());
  log.info('virt-launcher-monitor: Exiting...');
  return exitCode;
}
