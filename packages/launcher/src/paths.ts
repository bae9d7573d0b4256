// Every filesystem path the launcher uses, resolved under --run-root. With the default root `/` these are
// exactly KubeVirt's paths, so in a pod nothing changes; in tests a temporary directory isolates a run.
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
  hotplugDiskDir: string;
  vmiDisksDir: string;
  libvirtRunDir: string;
  libvirtEtcDir: string;
  libvirtLogDir: string;
  qemuRunDir: string;
}

export function resolvePaths(
  flags: Pick<
    LauncherFlags,
    'runRoot' | 'uid' | 'kubevirtShareDir' | 'ephemeralDiskDir' | 'containerDiskDir' | 'hotplugDiskDir'
  >,
): LauncherPaths {
  const root = resolve(flags.runRoot);
  const under = (p: string): string => join(root, p);
  const shareDir = under(flags.kubevirtShareDir);
  const socketsDir = join(shareDir, 'sockets');
  const privateDir = under('/var/run/kubevirt-private');
  const ephemeralDiskDir = under(flags.ephemeralDiskDir);
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
    hotplugDiskDir: under(flags.hotplugDiskDir),
    vmiDisksDir: join(privateDir, 'vmi-disks'),
    libvirtRunDir: under('/var/run/libvirt'),
    libvirtEtcDir: under('/etc/libvirt'),
    libvirtLogDir: under('/var/log/libvirt/qemu'),
    qemuRunDir: under('/run/libvirt/qemu'),
  };
}
