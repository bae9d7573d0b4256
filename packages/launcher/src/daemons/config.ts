// The libvirt daemon configuration the launcher writes before starting them (launcher.md §4, HOST-NOTES
// "libvirt"): sockets under the run root, no auth on the Unix socket (the pod is the boundary), QEMU as
// root without a security driver, cgroups or namespaces (the pod provides those).
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LauncherPaths } from '../paths.js';

export interface DaemonConfigFiles {
  daemonConf: string;
  qemuConf: string;
  virtlogdConf: string;
}

export function daemonConfText(paths: LauncherPaths, logFilters: string): string {
  const lines = [
    `unix_sock_dir = "${paths.libvirtRunDir}"`,
    'unix_sock_rw_perms = "0777"',
    'auth_unix_rw = "none"',
    'auth_unix_ro = "none"',
    'listen_tcp = 0',
    'listen_tls = 0',
    'log_outputs = "3:stderr"',
  ];
  if (logFilters) lines.push(`log_filters = "${logFilters.replace(/"/g, '')}"`);
  return lines.join('\n') + '\n';
}

export async function qemuConfText(): Promise<string> {
  const lines = [
    'stdio_handler = "file"',
    'vnc_listen = "0.0.0.0"',
    'vnc_tls = 0',
    'vnc_sasl = 0',
    'user = "root"',
    'group = "root"',
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
  await mkdir(paths.libvirtEtcDir, { recursive: true });
  await mkdir(paths.libvirtRunDir, { recursive: true });
  const files = {
    daemonConf: join(paths.libvirtEtcDir, `${daemon}.conf`),
    qemuConf: join(paths.libvirtEtcDir, 'qemu.conf'),
    virtlogdConf: join(paths.libvirtEtcDir, 'virtlogd.conf'),
  };
  await writeFile(files.daemonConf, daemonConfText(paths, logFilters));
  await writeFile(files.qemuConf, await qemuConfText());
  await writeFile(files.virtlogdConf, 'log_outputs = "3:stderr"\n');
  return files;
}
