// initializeDirs (docs/behaviour.md#start-up, step 3): the directories KubeVirt creates before anything else, under the
// run root. KubeVirt clears the umask for this; here the daemons start at the same time and would inherit a
// cleared mask, so the mask is only tightened (umask.ts) and each directory gets its exact mode with chmod.
// Synchronous on purpose: the ~40 calls take ~2 ms of the main thread, while as a chain of promises each step
// waited for the main thread to come back from loading the rest of the launcher (a 10-20 ms wait before the cmd
// server could bind, measured in bench/DESIGN.md).
import { accessSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
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

function makeDir(dir: string, mode: number): void {
  mkdirSync(dir, { recursive: true, mode });
  // mkdir's mode is filtered by the umask and ignored for a directory that already exists.
  chmodSync(dir, mode);
}

export function initializeDirs(paths: LauncherPaths, uid: string): void {
  tightenUmask();
  makeDir(paths.vmiPrivateDir, 0o755);
  makeDir(paths.cloudInitDir, 0o755);
  makeDir(paths.ignitionDir, 0o755);
  makeDir(paths.diskDataDir, 0o755);
  makeDir(paths.containerDiskDir, 0o750);
  makeDir(paths.hotplugDiskDir, 0o755);
  makeDir(paths.socketsDir, 0o755);
  makeDir(paths.libvirtRunDir, 0o755);
  for (const sub of PRIVATE_ISO_DIRS) makeDir(join(paths.privateDir, sub), 0o750);
  // KubeVirt makes the console log file only in a root pod; a non-root QEMU creates it itself as the pod's user.
  if (uid && !paths.xdg) {
    const serialLog = join(paths.vmiPrivateDir, 'virt-serial0-log');
    try {
      accessSync(serialLog);
    } catch {
      writeFileSync(serialLog, '', { mode: 0o644 });
    }
  }
}
