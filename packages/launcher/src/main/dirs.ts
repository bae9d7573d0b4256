// initializeDirs (launcher.md §3 step 3): the directories KubeVirt creates before anything else, under the
// run root. umask is cleared so the modes are exact.
import { mkdir, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import type { LauncherPaths } from '../paths.js';

export async function initializeDirs(paths: LauncherPaths, uid: string): Promise<void> {
  const old = process.umask(0);
  try {
    const make = (dir: string, mode: number) => mkdir(dir, { recursive: true, mode });
    await make(paths.vmiPrivateDir, 0o755);
    await make(paths.cloudInitDir, 0o755);
    await make(paths.ignitionDir, 0o755);
    await make(paths.diskDataDir, 0o755);
    await make(paths.containerDiskDir, 0o750);
    await make(paths.hotplugDiskDir, 0o755);
    await make(paths.socketsDir, 0o755);
    await make(paths.libvirtRunDir, 0o755);
    for (const sub of [
      'vm-disks',
      'config-map-disks',
      'sysprep-disks',
      'secret-disks',
      'downwardapi-disks',
      'service-account-disk',
      'downwardmetrics-channel',
    ]) {
      await make(join(paths.privateDir, sub), 0o750);
    }
    if (uid) {
      const serialLog = join(paths.vmiPrivateDir, 'virt-serial0-log');
      await access(serialLog).catch(() => writeFile(serialLog, ''));
    }
  } finally {
    process.umask(old);
  }
}
