// The libvirt daemon configuration the launcher writes before starting them (docs/behaviour.md#daemon-configuration,
// the repo's docs/host.md#libvirt): sockets under the run root, no auth on the Unix socket, so its mode is the
// only guard: the read-write socket is the daemon's user's alone (0700: the pod's user, root in a root pod), QEMU as
// root without a security driver, cgroups or namespaces (the pod provides those). A non-root pod (session mode,
// paths.xdg set) writes the same files under its own writable directories and names no user or group: QEMU runs
// as the daemon's user, which is the pod's.
import { access, chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LauncherPaths } from '../paths.js';
import { tightenUmask } from '../main/umask.js';

/** Config files are read by the daemons only: nobody but their owner may change them. */
const CONFIG_MODE = 0o644;
const CONFIG_DIR_MODE = 0o755;
/** The read-write daemon socket: its owner (the user the daemon runs as) only. */
export const DAEMON_SOCKET_MODE = 0o700;

export interface DaemonConfigFiles {
  daemonConf: string;
  qemuConf: string;
  virtlogdConf: string;
}

export function daemonConfText(paths: LauncherPaths, logFilters: string): string {
  const lines = [
    `unix_sock_dir = "${paths.libvirtRunDir}"`,
    // Whoever may connect to it runs any domain operation as the daemon's user. Its clients are the launcher (the
    // daemon's own user) and virt-handler's migration proxy (root); QEMU never dials it. KubeVirt's image sets
    // neither auth nor mode (cmd/virt-launcher/virtqemud.conf): libvirt then gives a root daemon polkit auth, which
    // lets only root in, and a session daemon no auth with 0700; 0700 keeps that set of clients without polkit.
    // The mode is the inode's: it holds when the socket is renamed to virtqemud-sock (socket-names.ts).
    `unix_sock_rw_perms = "${DAEMON_SOCKET_MODE.toString(8).padStart(4, '0')}"`,
    'auth_unix_rw = "none"',
    'auth_unix_ro = "none"',
    'listen_tcp = 0',
    'listen_tls = 0',
    // Warnings and errors unless filters let more through: the output's own level would otherwise drop the debug
    // messages the filters ask for.
    `log_outputs = "${logFilters ? 1 : 3}:stderr"`,
  ];
  if (logFilters) lines.push(`log_filters = "${logFilters.replace(/"/g, '')}"`);
  return lines.join('\n') + '\n';
}

export async function qemuConfText(nonRoot = false): Promise<string> {
  const lines = [
    'stdio_handler = "file"',
    'vnc_listen = "0.0.0.0"',
    'vnc_tls = 0',
    'vnc_sasl = 0',
    // A session-mode daemon cannot switch users; root mode names root explicitly (no libvirt-qemu in a pod).
    ...(nonRoot ? [] : ['user = "root"', 'group = "root"']),
    'security_driver = "none"',
    'dynamic_ownership = 0',
    'remember_owner = 0',
    'namespaces = [ ]',
    'cgroup_controllers = [ ]',
  ];
  const hugepages = await access('/dev/hugepages').then(
    () => true,
    () => false,
  );
  if (hugepages) lines.push('hugetlbfs_mount = "/dev/hugepages"');
  // virt-controller sets this for the debug-logs label or a launcher verbosity above 5.
  if (process.env.VIRTIOFSD_DEBUG_LOGS === '1') lines.push('virtiofsd_debug = 1');
  const shared = process.env.SHARED_FILESYSTEM_PATHS;
  if (shared) {
    const list = shared
      .split(':')
      .filter(Boolean)
      .map((p) => `"${p}"`);
    lines.push(`shared_filesystems = [ ${list.join(', ')} ]`);
  }
  return lines.join('\n') + '\n';
}

export async function writeDaemonConfigs(
  paths: LauncherPaths,
  daemon: string,
  logFilters: string,
): Promise<DaemonConfigFiles> {
  // Set before anything is created or spawned: the daemons and QEMU inherit this mask (a child keeps its
  // parent's), so their own state directories and files are not group/world-writable either.
  tightenUmask();
  for (const dir of new Set([paths.libvirtEtcDir, paths.libvirtRunDir, paths.qemuConfDir])) {
    await mkdir(dir, { recursive: true, mode: CONFIG_DIR_MODE });
  }
  const files = {
    daemonConf: join(paths.libvirtEtcDir, `${daemon}.conf`),
    qemuConf: join(paths.qemuConfDir, 'qemu.conf'),
    virtlogdConf: join(paths.libvirtEtcDir, 'virtlogd.conf'),
  };
  const write = async (path: string, text: string) => {
    await writeFile(path, text, { mode: CONFIG_MODE });
    // writeFile's mode only applies to a new file; one left by an earlier run keeps its old mode otherwise.
    await chmod(path, CONFIG_MODE);
  };
  await write(files.daemonConf, daemonConfText(paths, logFilters));
  await write(files.qemuConf, await qemuConfText(paths.xdg !== undefined));
  await write(files.virtlogdConf, 'log_outputs = "3:stderr"\n');
  return files;
}
