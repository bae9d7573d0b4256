// Starts the libvirt daemons a pod needs: virtqemud where it exists, else the monolithic libvirtd (no Debian
// release ships virtqemud) run with argv[0] `virtqemud`, plus virtlogd; both under supervision. Returns the URI of the daemon's socket, which is
// virtqemud's `virtqemud-sock` either way (socket-names.ts). For a non-root pod (paths.xdg) both run as the
// launcher's own user in session mode, with the XDG directories that put every file libvirt writes under the
// pod's private directories, and the URI says /session.
import { access, constants, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LauncherPaths } from '../paths.js';
import { writeDaemonConfigs } from './config.js';
import { SupervisedDaemon } from './supervisor.js';
import { qemuOnlyDriverEnv } from './driver-dir.js';
import { log } from '../log.js';
import { killProbeOrphans } from './probe-orphans.js';
import { warmQemuCapabilities } from './capabilities-warmup.js';
import { SocketInUseError, livePidFromFile, refuseLiveSocket } from '../main/socket-check.js';
import { untilSocketExists } from '../main/socket-wait.js';
import { QEMUD_SOCKET, daemonSockets, publishSockets, qemudUri, removeSockets } from './socket-names.js';

const sbin = ['/usr/sbin', '/usr/bin'];

async function findBinary(name: string): Promise<string | undefined> {
  for (const dir of sbin) {
    const path = join(dir, name);
    const ok = await access(path, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (ok) return path;
  }
  return undefined;
}

/**
 * The environment of a session-mode daemon: libvirt derives its config, cache (QEMU logs) and runtime (sockets,
 * pid files) directories from these three. Empty in root mode: a system daemon uses fixed paths.
 */
export function sessionEnv(paths: LauncherPaths): Record<string, string> {
  if (!paths.xdg) return {};
  return {
    XDG_RUNTIME_DIR: paths.xdg.runtimeDir,
    XDG_CONFIG_HOME: paths.xdg.configHome,
    XDG_CACHE_HOME: paths.xdg.cacheHome,
  };
}

export interface LibvirtDaemons {
  uri: string;
  socketPath: string;
  daemon: SupervisedDaemon;
  virtlogd: SupervisedDaemon | undefined;
  describe(): string;
  /**
   * Has the daemon probe its default emulator now (capabilities-warmup.ts), once: the first define would otherwise
   * probe it on the way to the guest's start. Called once the launcher is ready, so that the warm-up's virsh does not
   * compete with the launcher's start for the daemon and the CPU.
   */
  warmCapabilities(): void;
  /**
   * Spawns virtlogd (once). Only QEMU needs it, so the launcher spawns it after it is ready: before, its fork and
   * start would compete with the launcher's own start-up for the main thread and the CPU.
   */
  startVirtlogd(): void;
  /**
   * Resolves once virtlogd's socket exists (spawning it first if need be), or after 10 s: a domain is started only
   * after this, so QEMU never finds the log daemon missing. Never rejects: libvirt reports a virtlogd that is down.
   */
  virtlogdReady(): Promise<void>;
  stop(): Promise<void>;
}

const VIRTLOGD_WAIT_MS = 10_000;

export async function startLibvirtDaemons(paths: LauncherPaths, logFilters: string): Promise<LibvirtDaemons> {
  const virtqemud = await findBinary('virtqemud');
  const name = virtqemud ? 'virtqemud' : 'libvirtd';
  const binary = virtqemud ?? (await findBinary('libvirtd'));
  if (!binary) throw new Error('neither virtqemud nor libvirtd is installed');
  const sockets = daemonSockets(virtqemud ? 'virtqemud' : 'libvirt', paths.xdg !== undefined);
  const socketPath = join(paths.libvirtRunDir, QEMUD_SOCKET);
  const pidFile = join(paths.libvirtRunDir, `${name}.pid`);
  // A daemon still running here belongs to another launcher on this run root: deleting its socket would
  // leave both broken. Only a socket nobody serves (left by a killed daemon) is removed.
  const owner = await livePidFromFile(pidFile, name);
  if (owner !== undefined) throw new SocketInUseError(socketPath, `${name} (pid ${owner} in ${pidFile})`);
  // Its bound name too: a launcher killed between libvirtd's bind and the rename leaves only that one.
  for (const path of new Set([socketPath, join(paths.libvirtRunDir, sockets[0]!.bound)])) {
    await refuseLiveSocket(path, name);
  }
  // The daemon is the start-up's critical path (the launcher is ready once it answers): what it needs is prepared
  // at once, not one file operation after another. virtlogd (needed only by QEMU) is spawned after readiness.
  const [files, drivers, logdBinary] = await Promise.all([
    writeDaemonConfigs(paths, name, logFilters),
    // The monolithic libvirtd would load every driver module; virtqemud has only the QEMU driver (driver-dir.ts).
    virtqemud ? undefined : qemuOnlyDriverEnv(paths),
    findBinary('virtlogd'),
    removeSockets(paths.libvirtRunDir, sockets),
  ]);
  const env = sessionEnv(paths);
  const daemon = new SupervisedDaemon(name, binary, ['-f', files.daemonConf, '--pid-file', pidFile], {
    // After each death: a stale name would pass for the next daemon's socket (or be renamed in its place).
    afterExit: () => Promise.all([killProbeOrphans(name), removeSockets(paths.libvirtRunDir, sockets)]),
    afterSpawn: (running) =>
      void publishSockets(paths.libvirtRunDir, sockets, { shouldStop: () => !running() }).catch((err: unknown) =>
        log.warning('publishing the libvirt daemon sockets failed', { reason: String(err) }),
      ),
    env: { ...env, ...drivers?.env },
    // KubeVirt's pod runs virtqemud, and its e2e check (tests/vmi_configuration_test.go) finds the daemon by the
    // basename of the first word `ps` shows: libvirtd standing in for it runs under that name.
    argv0: 'virtqemud',
  });
  daemon.start();
  if (drivers) log.info(drivers.note);
  const virtlogd = logdBinary
    ? new SupervisedDaemon(
        'virtlogd',
        logdBinary,
        ['-f', files.virtlogdConf, '--pid-file', join(paths.libvirtRunDir, 'virtlogd.pid')],
        { env },
      )
    : undefined;
  let logdReady: Promise<void> | undefined;
  const startVirtlogd = (): Promise<void> => {
    if (!virtlogd) return Promise.resolve();
    if (!logdReady) {
      const socket = join(paths.libvirtRunDir, 'virtlogd-sock');
      // A socket left by a killed virtlogd would pass for the new one's before it binds.
      logdReady = rm(socket, { force: true })
        .catch(() => undefined)
        .then(() => {
          virtlogd.start();
          return untilSocketExists(socket, { timeoutMs: VIRTLOGD_WAIT_MS }).then(() => undefined);
        });
    }
    return logdReady;
  };
  const uri = qemudUri(paths.libvirtRunDir, paths.xdg !== undefined);
  // KubeVirt's message, logged as its launcher logs it before dialling (pkg/virt-launcher/virtwrap/cli/libvirt.go):
  // the launcher's first connection follows as soon as the socket is published.
  log.info(`Connecting to libvirt daemon: ${uri}`);
  const warmupAbort = new AbortController();
  let warmup: Promise<unknown> | undefined;
  return {
    uri,
    socketPath,
    daemon,
    virtlogd,
    describe: () => daemon.describe() + (virtlogd?.describe() ?? ''),
    startVirtlogd: () => void startVirtlogd(),
    virtlogdReady: startVirtlogd,
    warmCapabilities: () => {
      warmup ??= warmQemuCapabilities(uri, socketPath, { env, signal: warmupAbort.signal });
    },
    stop: async () => {
      warmupAbort.abort();
      await warmup;
      await daemon.stop();
      await virtlogd?.stop();
    },
  };
}
