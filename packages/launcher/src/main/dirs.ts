// initializeDirs (docs/behaviour.md#start-up, step 3): the directories KubeVirt creates before anything else, under the
// run root. KubeVirt clears the umask for this; here the daemons start at the same time and would inherit a
// cleared mask, so the mask is only tightened (umask.ts) and each directory gets its exact mode with chmod.
import { access, chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LauncherPaths } from '../paths.js';
import { tightenUmask } from './umask.js';

/** The per-kind ISO directories under /var/run/kubevirt-private: 0750, the ISOs may hold secrets. */
const PRIVATE_ISO_DIRS = [
  'vm-disks',
  'config-map-disks',
  'sysprep-disks',
  'secret-disks',
  'downwardapi-disks',
  'service-account-disk',
  'downwardmetrics-channel',
];

async function makeDir(dir: string, mode: number): Promise<void> {
  await mkdir(dir, { recursive: true, mode });
  // mkdir's mode is filtered by the umask and ignored for a directory that already exists.
  await chmod(dir, mode);
}

export async function initializeDirs(paths: LauncherPaths, uid: string): Promise<void> {
  tightenUmask();
  await makeDir(paths.vmiPrivateDir, 0o755);
  await makeDir(paths.cloudInitDir, 0o755);
  await makeDir(paths.ignitionDir, 0o755);
  await makeDir(paths.diskDataDir, 0o755);
  await makeDir(paths.containerDiskDir, 0o750);
  await makeDir(paths.hotplugDiskDir, 0o755);
  await makeDir(paths.socketsDir, 0o755);
  await makeDir(paths.libvirtRunDir, 0o755);
  for (const sub of PRIVATE_ISO_DIRS) await makeDir(join(paths.privateDir, sub), 0o750);
  // KubeVirt makes the console log file only in a root pod; a non-root QEMU creates it itself as the pod's user.
  if (uid && !paths.xdg) {
    const serialLog = join(paths.vmiPrivateDir, 'virt-serial0-log');
    await access(serialLog).catch(() => writeFile(serialLog, '', { mode: 0o644 }));
  }
}
