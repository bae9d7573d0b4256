// The monolithic libvirtd (all Debian 12 has; KubeVirt runs virtqemud) loads every connection driver module it
// finds in its driver directory: network, nodedev, nwfilter, interface, secret, storage and qemu. A pod needs only
// the QEMU driver: virtqemud is exactly that driver, and neither KubeVirt nor this launcher calls a secret, network,
// storage or node-device API. The other six cost libvirtd ~2.8 MiB of resident memory (0.8 MiB of it anonymous:
// their state drivers initialise) and ~0.4 s of start-up. libvirt takes the directory from LIBVIRT_DRIVER_DIR, so
// the launcher makes one of its own that holds a single symlink, to the system's QEMU module, and starts libvirtd
// with that variable. virtqemud loads only its own driver and gets nothing.
//
// libvirt keys its QEMU capability cache on the newest change time of the daemon and the modules it loaded; the
// symlink is followed for that, and libvirtd is no older than its modules, so the cache stays valid.
import { chmod, lstat, mkdir, rm, stat, symlink } from 'node:fs/promises';
import { arch } from 'node:process';
import { join } from 'node:path';
import type { LauncherPaths } from '../paths.js';

export const QEMU_DRIVER_MODULE = 'libvirt_driver_qemu.so';
/** Only the launcher writes here; libvirtd (the same user, or root) reads it. */
const DRIVER_DIR_MODE = 0o755;

const MULTIARCH: Record<string, string> = {
  x64: 'x86_64-linux-gnu',
  arm64: 'aarch64-linux-gnu',
  s390x: 's390x-linux-gnu',
  ppc64: 'powerpc64le-linux-gnu',
};

/**
 * Where libvirt's packages install the driver modules: Debian's multiarch directory, Fedora/CentOS (KubeVirt's
 * own image), then a plain /usr/lib. A LIBVIRT_DRIVER_DIR the launcher itself was given comes first.
 */
export function systemDriverDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = [];
  if (env.LIBVIRT_DRIVER_DIR) dirs.push(env.LIBVIRT_DRIVER_DIR);
  const multiarch = MULTIARCH[arch];
  if (multiarch) dirs.push(`/usr/lib/${multiarch}/libvirt/connection-driver`);
  dirs.push('/usr/lib64/libvirt/connection-driver', '/usr/lib/libvirt/connection-driver');
  return dirs;
}

/** The QEMU driver module in the first of `dirs` that has one (a regular file, possibly through a symlink). */
export async function findQemuDriverModule(dirs: string[]): Promise<string | undefined> {
  for (const dir of dirs) {
    const path = join(dir, QEMU_DRIVER_MODULE);
    const file = await stat(path).then(
      (s) => s.isFile(),
      () => false,
    );
    if (file) return path;
  }
  return undefined;
}

export class DriverDirError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`libvirt driver directory ${path}: ${reason}`);
    this.name = 'DriverDirError';
  }
}

/** The launcher's own driver directory, in the pod's private directory (an emptyDir in KubeVirt's pod). */
export function qemuOnlyDriverDir(paths: Pick<LauncherPaths, 'privateDir'>): string {
  return join(paths.privateDir, 'libvirt-drivers');
}

/**
 * Makes `dir` afresh with exactly one entry, a symlink to `module`, and mode 0755. Whatever was at `dir` before
 * (a leftover of an earlier run, a file, a symlink) is removed first, not followed: libvirtd runs code from here.
 * On failure nothing is left behind.
 */
export async function makeDriverDir(dir: string, module: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
    await mkdir(join(dir, '..'), { recursive: true, mode: DRIVER_DIR_MODE });
    // Not recursive: the directory must be the one made here, or this fails with EEXIST.
    await mkdir(dir, { mode: DRIVER_DIR_MODE });
    // mkdir's mode is filtered by the umask.
    await chmod(dir, DRIVER_DIR_MODE);
    await symlink(module, join(dir, QEMU_DRIVER_MODULE));
    const made = await lstat(dir);
    if (!made.isDirectory() || (made.mode & 0o7777) !== DRIVER_DIR_MODE) {
      throw new Error(`is not a directory of mode 0755 after creation (mode ${(made.mode & 0o7777).toString(8)})`);
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    throw new DriverDirError(dir, (err as Error).message);
  }
}

/** What libvirtd is started with, and why (for the launcher's log). */
export interface DriverDirChoice {
  env: Record<string, string>;
  note: string;
}

/**
 * For libvirtd: the environment that makes it load only the QEMU driver. Without a QEMU module in any known place
 * libvirtd is left to its own directory (it then finds its drivers, or says clearly that it has no QEMU driver).
 */
export async function qemuOnlyDriverEnv(
  paths: Pick<LauncherPaths, 'privateDir'>,
  searchDirs: string[] = systemDriverDirs(),
): Promise<DriverDirChoice> {
  const module = await findQemuDriverModule(searchDirs);
  if (!module) {
    return { env: {}, note: `no ${QEMU_DRIVER_MODULE} in ${searchDirs.join(', ')}: libvirtd loads all its drivers` };
  }
  const dir = qemuOnlyDriverDir(paths);
  await makeDriverDir(dir, module);
  return { env: { LIBVIRT_DRIVER_DIR: dir }, note: `libvirtd loads only the QEMU driver (${module} via ${dir})` };
}
