// Every filesystem path the launcher uses, resolved under --run-root. With the default root `/` these are
// exactly KubeVirt's paths, so in a pod nothing changes; in tests a temporary directory isolates a run.
// With --run-as-nonroot the libvirt daemons run in session mode as the pod's user, so their configs, logs and
// QEMU state move to the pod's writable directories, where libvirt's XDG rules put them (docs/non-root.md).
import { join, resolve } from 'node:path';
import type { LauncherFlags } from './flags.js';

export interface LauncherPaths {
  runRoot: string;
  shareDir: string;
  socketsDir: string;
  initSocket: string;
  readySocket: string;
  notifySocket: string;
  privateDir: string;
  vmiPrivateDir: string;
  ephemeralDiskDir: string;
  cloudInitDir: string;
  ignitionDir: string;
  diskDataDir: string;
  containerDiskDir: string;
  /** --image-volume: kubelet's read-only mounts of the containerDisk images, one `disk_<index>` each. */
  imageVolumeDir: string;
  /** --image-volume: kubelet's read-only mount of the kernel-boot image. */
  kernelBootVolumeDir: string;
  hotplugDiskDir: string;
  vmiDisksDir: string;
  /** Hook sidecar sockets, one subdirectory per sidecar (KubeVirt's /var/run/kubevirt-hooks). */
  hooksDir: string;
  libvirtRunDir: string;
  /** The daemons' own config files (libvirtd.conf or virtqemud.conf, virtlogd.conf). */
  libvirtEtcDir: string;
  /** Where QEMU's log file `<domain>.log` is written. */
  libvirtLogDir: string;
  /** Where libvirt keeps QEMU's pid file `<domain>.pid`. */
  qemuRunDir: string;
  /** The directory of qemu.conf as the daemon reads it. */
  qemuConfDir: string;
  /** Session mode only: the XDG directories the daemons are started with (XDG_RUNTIME/CONFIG/CACHE). */
  xdg: XdgDirs | undefined;
}

/** libvirt's session mode derives all its paths from these (virt-controller sets them in the pod's env). */
export interface XdgDirs {
  runtimeDir: string;
  configHome: string;
  cacheHome: string;
}

export function resolvePaths(
  flags: Pick<
    LauncherFlags,
    'runRoot' | 'uid' | 'kubevirtShareDir' | 'ephemeralDiskDir' | 'containerDiskDir' | 'hotplugDiskDir'
  > &
    Partial<Pick<LauncherFlags, 'runAsNonroot'>>,
): LauncherPaths {
  const root = resolve(flags.runRoot);
  const under = (p: string): string => join(root, p);
  const shareDir = under(flags.kubevirtShareDir);
  const socketsDir = join(shareDir, 'sockets');
  const privateDir = under('/var/run/kubevirt-private');
  const ephemeralDiskDir = under(flags.ephemeralDiskDir);
  const libvirtRunDir = under('/var/run/libvirt');
  // KubeVirt's pod: XDG_RUNTIME_DIR=/var/run, XDG_CONFIG_HOME=XDG_CACHE_HOME=/var/run/kubevirt-private.
  const xdg = flags.runAsNonroot
    ? { runtimeDir: under('/var/run'), configHome: privateDir, cacheHome: privateDir }
    : undefined;
  const sessionHome = join(privateDir, 'libvirt');
  return {
    runRoot: root,
    shareDir,
    socketsDir,
    initSocket: join(socketsDir, 'launcher-init-sock'),
    readySocket: join(socketsDir, 'launcher-sock'),
    notifySocket: join(shareDir, 'domain-notify-pipe.sock'),
    privateDir,
    vmiPrivateDir: join(privateDir, flags.uid),
    ephemeralDiskDir,
    cloudInitDir: join(ephemeralDiskDir, 'cloud-init-data'),
    ignitionDir: join(ephemeralDiskDir, 'ignition-data'),
    diskDataDir: join(ephemeralDiskDir, 'disk-data'),
    containerDiskDir: under(flags.containerDiskDir),
    // Fixed in KubeVirt (pkg/util/util.go VirtImageVolumeDir, VirtKernelBootVolumeDir): no flag moves them.
    imageVolumeDir: under('/var/run/kubevirt-image-volume'),
    kernelBootVolumeDir: under('/var/run/kubevirt-kernel-boot'),
    hotplugDiskDir: under(flags.hotplugDiskDir),
    vmiDisksDir: join(privateDir, 'vmi-disks'),
    hooksDir: under('/var/run/kubevirt-hooks'),
    libvirtRunDir,
    // The image's /etc is read-only to the pod's user: the daemon configs go beside the sockets, as KubeVirt's
    // virtqemud.conf does.
    libvirtEtcDir: xdg ? libvirtRunDir : under('/etc/libvirt'),
    libvirtLogDir: xdg ? join(sessionHome, 'qemu/log') : under('/var/log/libvirt/qemu'),
    qemuRunDir: xdg ? join(libvirtRunDir, 'qemu/run') : under('/run/libvirt/qemu'),
    qemuConfDir: xdg ? sessionHome : under('/etc/libvirt'),
    xdg,
  };
}
