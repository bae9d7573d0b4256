// The names a client finds the pod's QEMU daemon under. KubeVirt v1.9 dials `/var/run/libvirt/virtqemud-sock`
// inside the pod: virt-handler's target migration proxy (pkg/virt-handler/migration-target.go,
// handleTargetMigrationProxy) and a non-root launcher's own URI (cmd/virt-launcher/virt-launcher.go,
// createLibvirtConnection); a root launcher's `qemu:///system` resolves to the same file (libvirt's client prefers
// the per-driver daemon's socket when it exists). The monolithic libvirtd names its sockets with a prefix compiled
// into it (`libvirt-sock`, `libvirt-sock-ro`, `libvirt-admin-sock`; unix_sock_dir only chooses their directory), so
// once libvirtd has bound one the launcher renames it to virtqemud's name. rename(2) is atomic and keeps the inode,
// and the kernel finds a listening Unix socket by its inode: libvirtd keeps accepting on the new name, its mode and
// owner are the ones libvirtd gave it, and the directory holds what a virtqemud pod's holds, nothing more.
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { untilSocketExists } from '../main/socket-wait.js';
import { log } from '../log.js';

/** The read-write socket's name in a KubeVirt pod. */
export const QEMUD_SOCKET = 'virtqemud-sock';

/** One socket as libvirtd binds it and as the pod shows it. */
export interface SocketRename {
  bound: string;
  published: string;
}

/** The prefix a daemon's socket names start with: compiled into it, not configurable. */
export type SocketPrefix = 'libvirt' | 'virtqemud';

/**
 * What the daemon binds in its unix_sock_dir, and the name each gets in the pod. A system daemon binds all three;
 * a session daemon given a unix_sock_dir only the read-write one (virDaemonUnixSocketPaths, libvirt 9.0).
 * virtqemud's names are already KubeVirt's: published as they are.
 */
export function daemonSockets(prefix: SocketPrefix, sessionMode: boolean): SocketRename[] {
  const all = [
    { bound: `${prefix}-sock`, published: QEMUD_SOCKET },
    { bound: `${prefix}-sock-ro`, published: 'virtqemud-sock-ro' },
    { bound: `${prefix}-admin-sock`, published: 'virtqemud-admin-sock' },
  ];
  return sessionMode ? all.slice(0, 1) : all;
}

/** The URI the launcher dials: KubeVirt's own, with the socket under the run root when that is not `/`. */
export function qemudUri(libvirtRunDir: string, sessionMode: boolean): string {
  const socket = join(libvirtRunDir, QEMUD_SOCKET);
  // KubeVirt's root launcher says qemu:///system, which libvirt resolves to this very file; under another run
  // root the file is elsewhere and the URI has to name it.
  if (!sessionMode && socket === `/var/run/libvirt/${QEMUD_SOCKET}`) return 'qemu:///system';
  return `qemu+unix:///${sessionMode ? 'session' : 'system'}?socket=${socket}`;
}

export interface PublishOptions {
  /** True once the daemon that should bind them has exited: the wait ends. */
  shouldStop: () => boolean;
  timeoutMs?: number;
}

/**
 * Waits for each socket libvirtd binds in `dir` and renames it to its published name, replacing a stale file of
 * that name in the same step. Resolves with the names published; one that never appeared is logged, not thrown:
 * the launcher's own connection then fails with the daemon's stderr.
 */
export async function publishSockets(
  dir: string,
  renames: SocketRename[],
  { shouldStop, timeoutMs = 60_000 }: PublishOptions,
): Promise<string[]> {
  const missing: string[] = [];
  const published = await Promise.all(
    renames.map(async ({ bound, published }) => {
      const from = join(dir, bound);
      if (!(await untilSocketExists(from, { timeoutMs, shouldStop }))) {
        missing.push(`${bound}: not bound`);
        return undefined;
      }
      if (bound === published) return published;
      // ENOENT here: the daemon exited and unlinked it in between; its successor's is published in turn.
      const failed = await rename(from, join(dir, published)).then(
        () => undefined,
        (err: NodeJS.ErrnoException) => err.code ?? String(err),
      );
      if (failed) missing.push(`${bound}: ${failed}`);
      return failed ? undefined : published;
    }),
  );
  if (missing.length > 0 && !shouldStop()) {
    log.warning(`libvirt daemon sockets not published as ${QEMUD_SOCKET}`, { dir, missing: missing.join(', ') });
  }
  return published.filter((p): p is string => p !== undefined);
}

/**
 * Removes both names of every socket: a daemon that died leaves the renamed ones (its own unlink at exit looks
 * for the name it bound), and one that died before the rename its bound name, which would pass for the next
 * daemon's.
 */
export async function removeSockets(dir: string, renames: SocketRename[]): Promise<void> {
  const names = new Set(renames.flatMap((r) => [r.bound, r.published]));
  await Promise.all([...names].map((n) => rm(join(dir, n), { force: true })));
}
