// KubeVirt's directory layout, resolved from the context's optional Paths message. Keeping every path
// here lets the launcher's --run-root move the whole tree without the configurators knowing.
import type { Paths } from '../gen/virtlauncher/converter/v1/converter.js';

export interface ResolvedPaths {
  kubevirtPrivateDir: string;
  ephemeralDiskDir: string;
  containerDiskDir: string;
  hotplugDiskDir: string;
  libvirtRunDir: string;
  cloudInitDir: string;
  ephemeralOverlayDir: string;
  kubevirtRunDir: string;
  nvramDir: string;
}

export const DEFAULT_PATHS = {
  kubevirtPrivateDir: '/var/run/kubevirt-private',
  ephemeralDiskDir: '/var/run/kubevirt-ephemeral-disks',
  containerDiskDir: '/var/run/kubevirt/container-disks',
  hotplugDiskDir: '/var/run/kubevirt/hotplug-disks',
  libvirtRunDir: '/var/run/libvirt',
  kubevirtRunDir: '/var/run/kubevirt',
  nvramDir: '/var/lib/libvirt/qemu/nvram',
} as const;

/** Drops trailing slashes so joins never double them (filepath.Join semantics for the base). */
function dir(path: string): string {
  // endsWith first: the regex on every path of every conversion was ~8% of convert().
  return path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : path;
}

/**
 * A configured directory without its trailing slashes, or the fallback. Only configured values can end in
 * a slash (the defaults and the directories built from them never do), so only they pass through dir():
 * it reads the last character, which first flattens a path built by concatenation.
 */
function configured(value: string | undefined, fallback: string): string {
  return value ? dir(value) : fallback;
}

export function resolvePaths(paths: Paths | undefined, nonRoot: boolean): ResolvedPaths {
  const p = paths ?? {};
  const privateDir = configured(p.kubevirtPrivateDir, DEFAULT_PATHS.kubevirtPrivateDir);
  const ephemeralDiskDir = configured(p.ephemeralDiskDir, DEFAULT_PATHS.ephemeralDiskDir);
  // A non-root launcher cannot write /var/lib/libvirt: KubeVirt keeps nvram under the private dir then.
  const nvramDefault = nonRoot ? `${privateDir}/libvirt/qemu/nvram` : DEFAULT_PATHS.nvramDir;
  return {
    kubevirtPrivateDir: privateDir,
    ephemeralDiskDir,
    containerDiskDir: configured(p.containerDiskDir, DEFAULT_PATHS.containerDiskDir),
    hotplugDiskDir: configured(p.hotplugDiskDir, DEFAULT_PATHS.hotplugDiskDir),
    libvirtRunDir: configured(p.libvirtRunDir, DEFAULT_PATHS.libvirtRunDir),
    cloudInitDir: configured(p.cloudInitDir, `${ephemeralDiskDir}/cloud-init-data`),
    ephemeralOverlayDir: configured(p.ephemeralOverlayDir, `${ephemeralDiskDir}/disk-data`),
    kubevirtRunDir: configured(p.kubevirtRunDir, DEFAULT_PATHS.kubevirtRunDir),
    nvramDir: configured(p.nvramDir, nvramDefault),
  };
}
