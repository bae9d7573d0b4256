// libvirt learns what a QEMU binary can do by running it once and asking over QMP (the capability probe, 0.5–1.5 s
// under TCG on two cores), the first time something needs that binary, and caches the answer per pod (the cache lives
// in the pod's own /var or XDG cache). Left alone, the first thing that needs it is SyncVirtualMachine's define: the
// probe then runs on the path to the guest's start. Asking the daemon for the domain capabilities of its default
// emulator once the launcher is ready starts the same probe while virt-handler prepares and sends the first sync
// (started earlier, as soon as the socket exists, its virsh competed with the launcher's own start); define then finds the answer cached (or waits for the probe in flight: libvirt locks the
// cache entry, it never probes one binary twice at once). Nothing observable changes but the timing: the probe, its
// cache file and the emulator are the ones define would have used (a VMI with no <emulator> gets the default one).
// The launcher's stop aborts it (virsh is ended, so no client of a frozen daemon outlives the launcher); a probe
// QEMU the daemon left when killed is ended by the daemon's clean-up (probe-orphans.ts).
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { log } from '../log.js';
import { untilSocketExists } from '../main/socket-wait.js';

/** virsh ships beside the daemons (libvirt-clients; KubeVirt's image runs it for the node labeller). */
export const VIRSH = '/usr/bin/virsh';
const SOCKET_POLL_MS = 50;
const SOCKET_WAIT_MS = 15_000;

export interface WarmupOutcome {
  /** Whether the daemon answered with the capabilities (false: no virsh, no socket in time, or an error). */
  probed: boolean;
  durationMs: number;
  reason?: string;
}

async function exists(path: string, mode: number): Promise<boolean> {
  return access(path, mode).then(
    () => true,
    () => false,
  );
}

function domcapabilities(virsh: string, uri: string, env: Record<string, string>, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      virsh,
      ['-c', uri, 'domcapabilities'],
      { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env }, signal },
      (err, _out, stderr) => (err ? reject(new Error(stderr.trim() || err.message)) : resolve()),
    );
  });
}

export interface WarmupOptions {
  /** The daemon's session environment (XDG directories of a non-root pod), so virsh reads the same config. */
  env?: Record<string, string>;
  /** Ends the wait and virsh: the launcher is stopping. */
  signal?: AbortSignal;
  virsh?: string;
}

/**
 * Waits (bounded) for the daemon's socket, then has it probe its default emulator. Never throws: a warm-up that
 * cannot run leaves the probe to define, as before, and says why in the log.
 */
export async function warmQemuCapabilities(
  uri: string,
  socketPath: string,
  { env = {}, signal, virsh = VIRSH }: WarmupOptions = {},
): Promise<WarmupOutcome> {
  const started = performance.now();
  const done = (probed: boolean, reason?: string): WarmupOutcome => {
    const outcome = { probed, durationMs: Math.round(performance.now() - started), reason };
    log.info('QEMU capability warm-up', { ...outcome });
    return outcome;
  };
  if (!(await exists(virsh, constants.X_OK))) return done(false, `${virsh} is not installed`);
  const stopping = () => signal?.aborted === true;
  const bound = await untilSocketExists(socketPath, {
    timeoutMs: SOCKET_WAIT_MS,
    pollMs: SOCKET_POLL_MS,
    shouldStop: stopping,
  });
  if (stopping()) return done(false, 'the launcher is stopping');
  if (!bound) return done(false, `${socketPath} did not appear`);
  try {
    await domcapabilities(virsh, uri, env, signal);
    return done(true);
  } catch (err) {
    return done(false, signal?.aborted ? 'the launcher is stopping' : (err as Error).message);
  }
}
