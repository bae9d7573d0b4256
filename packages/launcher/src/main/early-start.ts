// The first steps of the main sequence, kept free of gRPC, protobuf and the libvirt binding: the libvirt
// daemons are spawned before Node has parsed any of those, so the daemon's own start-up (~160 ms) runs while
// this process loads the rest (docs/behaviour.md#start-up; the observable order of milestones is unchanged).
import type { LauncherFlags } from '../flags.js';
import { resolvePaths } from '../paths.js';
import type { LauncherPaths } from '../paths.js';
import { log } from '../log.js';
import { sessionEnv, startLibvirtDaemons } from '../daemons/libvirt-daemons.js';
import { libvirtLogFilters } from '../daemons/log-filters.js';
import type { LibvirtDaemons } from '../daemons/libvirt-daemons.js';
import { preloadLibvirt } from '../adapters/libvirt.js';
import { initializeDirs } from './dirs.js';
import { trapSignals } from './signals.js';
import { collectHooks } from '../hooks/load.js';
import type { HookCallbacks } from '../hooks/callbacks.js';
import type { StopSignal } from './signals.js';

export interface EarlyStart {
  paths: LauncherPaths;
  stop: StopSignal;
  /** Resolves once the directories exist. */
  dirs: Promise<void>;
  /** The spawned daemons; undefined when --libvirt-uri names an outside daemon. */
  daemons: Promise<LibvirtDaemons | undefined>;
  /** The hook sidecars once all requested ones answered (docs/hooks.md); undefined without --hook-sidecars. */
  hooks: Promise<HookCallbacks | undefined>;
}

export async function timed<T>(phase: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  // sinceStartMs counts from the process's start (performance's time origin): it shows where start-up goes.
  const now = performance.now();
  log.info(`phase ${phase} done`, { phase, durationMs: Math.round(now - started), sinceStartMs: Math.round(now) });
  return result;
}

/** Spawns the daemons, then creates the directories (the daemons need none of them). */
export function startEarly(flags: LauncherFlags): EarlyStart {
  const paths = resolvePaths(flags);
  // Session mode: the launcher's own libvirt client and every tool it runs see the same XDG directories as the
  // daemons (as in KubeVirt's pod, where virt-controller sets them for the whole container).
  Object.assign(process.env, sessionEnv(paths));
  const stop = trapSignals();
  const logFilters = libvirtLogFilters(flags.libvirtLogFilters, process.env);
  if (logFilters && !flags.libvirtUri) log.info(`Enabling libvirt log filters: ${logFilters}`);
  const daemons = flags.libvirtUri
    ? Promise.resolve(undefined)
    : timed('daemons', () => startLibvirtDaemons(paths, logFilters));
  // The directories are needed by the first Sync, not by the daemons: made once the daemons are spawned, so their
  // ~40 file operations do not queue before the daemons' own in libuv's thread pool.
  const makeDirs = () => timed('directories', () => initializeDirs(paths, flags.uid));
  const dirs = daemons.then(makeDirs, makeDirs);
  // Sidecars are awaited (KubeVirt: for --qemu-timeout) while the daemons start; neither needs the other.
  const hooks =
    flags.hookSidecars > 0
      ? timed('hook sidecars', () => collectHooks(paths.hooksDir, flags.hookSidecars, flags.qemuTimeoutMs))
      : Promise.resolve(undefined);
  hooks.catch(() => undefined);
  // Both are awaited by the main sequence; these only keep a rejection from being reported as unhandled
  // while the rest of the launcher is still loading.
  daemons.catch(() => undefined);
  dirs.catch(() => undefined);
  return { paths, stop, dirs, daemons, hooks };
}

/** Starts loading the libvirt binding; called once the daemons are spawned so their start overlaps it. */
export function preloadBinding(): void {
  void timed('binding', preloadLibvirt).catch(() => undefined);
}
