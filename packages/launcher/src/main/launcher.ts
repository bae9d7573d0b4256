// The main sequence (docs/behaviour.md#start-up) as named steps: directories, libvirt daemons, connection, cmd server,
// self-ping, ready, wait for the domain, monitor QEMU, final notification, stop everything.
import type { LauncherFlags } from '../flags.js';
import type { LauncherPaths } from '../paths.js';
import { log } from '../log.js';
import { CmdServer } from '../cmd-server/server.js';
import { selfPing } from '../cmd-server/self-ping.js';
import { domainHandlers } from '../cmd-server/handlers.js';
import { DomainManager } from '../domain/manager.js';
import { MetadataCache } from '../domain/metadata.js';
import { DomainEventMonitor } from '../events/domain-events.js';
import { Notifier } from '../events/notifier.js';
import { launcherK8sEvents } from '../events/k8s-domain-events.js';
import { DhcpServers } from '../network/dhcp.js';
import { startEarly, timed } from './early-start.js';
import type { EarlyStart } from './early-start.js';
import { LibvirtSession } from './libvirt-session.js';
import { monitorQemu } from './process-monitor.js';
import { waitForFinalNotify } from './final-notify.js';
import { StoppedBySignal } from './signals.js';
import type { StopSignal } from './signals.js';
import { stopLeftoverGuests } from './leftover-guests.js';
import { STATE } from '../domain/state.js';
import { waitForDomain } from './wait-domain.js';
import { LauncherPanic } from '../errors.js';
import type { HookCallbacks } from '../hooks/callbacks.js';
import { collectHooks } from '../hooks/load.js';
import { startGuestAgent } from '../agent/wiring.js';
import { followQemuLog } from '../daemons/qemu-log.js';
import { relayFirmwareLogOrWarn } from '../daemons/firmware-log.js';

// For write-code-cache.ts, which runs this bundle once at build time (main/code-cache.ts).
export { exerciseStartUpPaths } from './code-cache-training.js';

interface Running {
  flags: LauncherFlags;
  paths: LauncherPaths;
  stop: StopSignal;
  session: LibvirtSession;
  manager: DomainManager;
  events: DomainEventMonitor;
  metadata: MetadataCache;
  hooks: HookCallbacks | undefined;
}

/** After the domain appeared: watch QEMU, handle the stop signal, make sure the handler hears the end. */
async function superviseDomain(r: Running, domainName: string, localDaemons: boolean): Promise<void> {
  await monitorQemu({
    domainName,
    conn: () => r.session.conn,
    pidDir: localDaemons ? r.paths.qemuRunDir : undefined,
    qemuTimeoutMs: r.flags.qemuTimeoutMs,
    gracePeriodSeconds: r.flags.gracePeriodSeconds,
    stop: r.stop,
    onGraceful: async () => {
      r.metadata.update((m) => {
        m.GracePeriod ??= { DeletionGracePeriodSeconds: r.flags.gracePeriodSeconds };
        m.GracePeriod.MarkedForGracefulShutdown = true;
      });
      // Only the mark (sent as MODIFIED by the metadata change): the handler chooses ShutdownVirtualMachine or,
      // for a grace period of 0, KillVirtualMachine. If no handler acts, the grace-period expiry below kills QEMU.
      log.info('Signaled graceful shutdown');
    },
    onFinal: async (pid) => {
      try {
        await r.manager.kill(domainName);
      } catch (err) {
        log.error('Unable to stop qemu with libvirt', { reason: String(err) });
        if (pid) {
          log.info('Falling back to SIGTERM');
          process.kill(pid, 'SIGTERM');
        }
      }
    },
  });
  // Sidecars that asked for it hear that the guest is gone, before the final notification (as KubeVirt).
  await r.hooks?.shutdown().catch((err: unknown) => log.error('Failed to run Shutdown', { reason: String(err) }));
  await waitForFinalNotify(r.events, () => r.manager.kill(domainName));
}

/** The main sequence; `early` is what cli.ts started before loading this module (see early-start.ts). */
export async function runLauncher(flags: LauncherFlags, early: EarlyStart = startEarly(flags)): Promise<void> {
  const { paths, stop } = early;
  // Sidecars are awaited (KubeVirt: for --qemu-timeout) while the daemons start; neither needs the other.
  const hooksReady =
    flags.hookSidecars > 0
      ? timed('hook sidecars', () => collectHooks(paths.hooksDir, flags.hookSidecars, flags.qemuTimeoutMs))
      : Promise.resolve(undefined);
  hooksReady.catch(() => undefined); // awaited below, after the daemons
  const daemons = await early.daemons;
  await early.dirs;
  const hooks = await hooksReady.catch(async (err: unknown) => {
    await daemons?.stop();
    throw err;
  });
  if (flags.simulateCrash) {
    await daemons?.stop();
    throw new LauncherPanic('Simulated virt-launcher crash');
  }
  const metadata = new MetadataCache();
  const notifier = new Notifier(paths.notifySocket);
  const domainName = flags.name ? `${flags.namespace || 'default'}_${flags.name}` : '';
  // QEMU's log into ours (subcomponent qemu), from the file our own daemon writes; an outside daemon's is not ours.
  const qemuLog = daemons && domainName ? followQemuLog(paths, domainName) : undefined;
  // SeaBIOS's debug console (a verbose launcher's domains write it) into ours; without the FIFO QEMU writes a file.
  const firmwareLog = daemons ? await relayFirmwareLogOrWarn(paths.privateDir) : undefined;
  // eslint-disable-next-line prefer-const
  let session: LibvirtSession;
  const events = new DomainEventMonitor(domainName, () => session.conn, metadata, notifier);
  // Kubernetes events (IOerror, GuestPanicked; `k8s.sender` for anything else that reports one).
  const k8s = launcherK8sEvents({
    flags,
    libvirtLogDir: paths.libvirtLogDir,
    notifier,
    metadataUid: () => metadata.get().UID,
    domainName,
    conn: () => session.conn,
  });
  session = new LibvirtSession(flags.libvirtUri || (daemons?.uri ?? ''), {
    totalMs: daemons ? 30_000 : 15_000,
    retryMs: daemons ? 100 : 500,
    socketPath: daemons?.socketPath,
    describeFailure: () => daemons?.describe() ?? '',
    onReconnect: (conn) => {
      events.attach(conn);
      k8s.reporter.attach(conn);
      agent.attach(conn);
    },
  });
  // The guest agent's calls get a connection of their own (agent/call-gate.ts): calls waiting on a stuck agent
  // cannot fill the daemon's per-client request slots that GetDomain and the other RPCs need on `session`.
  const agentSession = new LibvirtSession(session.uri, { totalMs: 15_000, retryMs: 500 });
  const dhcp = new DhcpServers(paths);
  const manager = new DomainManager(domainName, {
    conn: () => session.conn,
    flags,
    paths,
    metadata,
    prepareNetwork: (vmi) => dhcp.start(vmi),
    beforeDomainStart: async () => daemons?.virtlogdReady(),
    hooks,
  });
  const agent = startGuestAgent({
    flags,
    paths,
    domainName,
    conn: () => session.conn,
    callConn: () => (agentSession.connected ? agentSession.conn : undefined),
    events,
    metadata,
    sendEvent: (e) => k8s.sender.sendK8sEvent(e),
  });
  const server = new CmdServer(agent.handlers(domainHandlers(manager)));
  try {
    // The server binds and answers its self-ping while the daemon starts; only launcher-init-sock exists
    // until the connection is up, so the handler cannot find (or call) it before then.
    const serving = timed('cmd server', async () => {
      await server.listen(paths.initSocket, [paths.readySocket]);
      await selfPing(paths.initSocket);
    });
    await untilReadyOrStopped(Promise.all([timed('connect', () => session.connect(early.connection)), serving]), stop);
    events.attach(session.conn);
    k8s.reporter.attach(session.conn);
    agent.attach(session.conn);
    agentSession
      .connect()
      .catch((err: unknown) => log.warning('guest agent calls share the launcher connection', { reason: String(err) }));
    await server.markReady(paths.readySocket);
    daemons?.startVirtlogd();
    // The capability probe runs while the handler gets ready to sync, not inside the first define.
    daemons?.warmCapabilities();

    let found = await waitForDomain(domainName, () => session.conn, events, stop, flags.qemuTimeoutMs);
    // A stop while a Sync is defining or starting the domain: let that Sync finish, refuse later ones, then
    // stop whatever it started the usual way (graceful, then destroy after the grace period).
    if (!found && stop.stopped) found = await domainStartedMeanwhile(manager, session, domainName, stop);
    if (found) {
      log.info(`Domain ${found} found`);
      const r = { flags, paths, stop, session, manager, events, metadata, hooks };
      await superviseDomain(r, found, daemons !== undefined);
    }
  } finally {
    // A Sync still running must finish before the leftover check below, or the guest it starts is missed.
    const drained = manager.close(stop.stopped ? await stop.received : 'exit');
    const bound = new Promise<false>((r) => setTimeout(() => r(false), 120_000).unref());
    if ((await Promise.race([drained.then(() => true), bound])) === false) {
      log.error('a SyncVirtualMachine still runs after 120 s; stopping without waiting for it');
    }
    await server.stop();
    agent.close();
    await stopLeftoverGuests({
      conn: () => (session.connected ? session.conn : undefined),
      domainName,
      pidDir: daemons ? paths.qemuRunDir : undefined,
    });
    await dhcp.stop();
    notifier.close();
    await agentSession.close();
    await session.close();
    await daemons?.stop();
    await qemuLog?.stop();
    await firmwareLog?.stop();
  }
}

/** Waits for start-up unless a stop signal comes first (then StoppedBySignal at once: no 30 s connect wait). */
async function untilReadyOrStopped(startup: Promise<unknown>, stop: StopSignal): Promise<void> {
  startup.catch(() => undefined); // when the stop wins, a later failure of the abandoned start-up is moot
  const signal = await Promise.race([startup.then(() => undefined), stop.received]);
  if (signal !== undefined) throw new StoppedBySignal(signal);
}

/** After a stop: the domain a Sync in flight may have started, if it is running. */
async function domainStartedMeanwhile(
  manager: DomainManager,
  session: LibvirtSession,
  domainName: string,
  stop: StopSignal,
): Promise<string | undefined> {
  await manager.close(await stop.received);
  const domains = await session.conn.listAllDomains().catch(() => []);
  for (const dom of domains) {
    if (domainName && dom.name !== domainName) continue;
    const state = await dom.getState().then(
      (s) => s.stateCode,
      () => STATE.noState,
    );
    if (state !== STATE.shutoff && state !== STATE.noState && state !== STATE.crashed) return dom.name;
  }
  return undefined;
}
