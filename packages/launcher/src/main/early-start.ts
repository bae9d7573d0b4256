// The first steps of the main sequence, kept free of gRPC, protobuf and the libvirt binding: the libvirt
// daemons are spawned before Node has parsed any of those, so the daemon's own start-up (~160 ms) runs while
// this process loads the rest (docs/behaviour.md#start-up; the observable order of milestones is unchanged).
// The build bundles this module and cli.ts into dist/cli.js apart from the main sequence (dist/launcher-main.cjs,
// scripts/bundle.ts): nothing here may import gRPC, the protos or the hook sidecars' client, or the first file
// grows back to the size of the whole launcher.
import type { LauncherFlags } from '../flags.js';
import { resolvePaths } from '../paths.js';
import type { LauncherPaths } from '../paths.js';
import { log } from '../log.js';
import { sessionEnv, startLibvirtDaemons } from '../daemons/libvirt-daemons.js';
import { libvirtLogFilters } from '../daemons/log-filters.js';
import type { LibvirtDaemons } from '../daemons/libvirt-daemons.js';
import { preloadLibvirt } from '../adapters/libvirt.js';
import type { Connection } from '../adapters/libvirt.js';
import { firstConnection } from './first-connection.js';
import { initializeDirs } from './dirs.js';
import { trapSignals } from './signals.js';
import type { StopSignal } from './signals.js';

export interface EarlyStart {
  paths: LauncherPaths;
  stop: StopSignal;
  /** Resolves once the directories exist. */
  dirs: Promise<void>;
  /** The spawned daemons; undefined when --libvirt-uri names an outside daemon. */
  daemons: Promise<LibvirtDaemons | undefined>;
  /** Resolves once the libvirt binding is loaded (or failed to: the session reports that later). */
  binding: Promise<void>;
  /** The first connection to the daemon, opened while the rest loads; undefined if it could not be made. */
  connection: Promise<Connection | undefined>;
}

export async function timed<T>(
  phase: string,
  fn: () => Promise<T>,
  fields: (result: T) => Record<string, unknown> = () => ({}),
): Promise<T> {
  const started = performance.now();
  const result = await fn();
  // sinceStartMs counts from the process's start (performance's time origin): it shows where start-up goes.
  const now = performance.now();
  log.info(`phase ${phase} done`, {
    phase,
    durationMs: Math.round(now - started),
    sinceStartMs: Math.round(now),
    ...fields(result),
  });
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
  // The directories are needed by the cmd server and the first Sync, not by the daemons: made once the daemons are
  // spawned, so their ~40 file operations do not delay the spawn.
  const makeDirs = () => timed('directories', async () => initializeDirs(paths, flags.uid));
  const dirs = daemons.then(makeDirs, makeDirs);
  // Both are awaited by the main sequence; these only keep a rejection from being reported as unhandled
  // while the rest of the launcher is still loading.
  daemons.catch(() => undefined);
  dirs.catch(() => undefined);
  // Once the daemons are spawned (not before: a fork while another thread is inside the dynamic loader can wait
  // for it), a worker thread maps the binding's ~58 libraries while this thread loads the main sequence; the
  // binding then loads in a few ms and the handshake follows at once. A failed preload is only logged: loading
  // the binding reports what is missing.
  const libraries = daemons.then(
    () =>
      timed('libraries', () =>
        import('@virt-launcher/libvirt/preload').then(({ preloadLibraries }) => preloadLibraries()),
      ).catch((err: unknown) => log.debug('preloading the libvirt libraries failed', { reason: String(err) })),
    () => undefined,
  );
  const binding = libraries.then(
    () => timed('binding', preloadLibvirt).then(() => undefined),
    () => undefined,
  );
  binding.catch(() => undefined);
  const connection = Promise.all([daemons, binding]).then(
    ([d]) => firstConnection(flags.libvirtUri || (d?.uri ?? ''), { socketPath: d?.socketPath, waitMs: 30_000 }),
    () => undefined,
  );
  return { paths, stop, dirs, daemons, binding, connection };
}
