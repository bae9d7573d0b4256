// The non-root pod, KubeVirt's default: virt-controller runs the compute container as uid/gid 107 with every
// capability dropped but NET_BIND_SERVICE (the DHCP server's port 67), without privilege escalation, and passes
// --run-as-nonroot. Its volumes (here: the run-root's run/ directories) are writable by that user, and
// virt-handler makes the tap owned by it. `virt-pod run --root` keeps the old all-root pod.
import fs from 'node:fs';
import path from 'node:path';

/** KubeVirt's NonRootUID (also the gid), the `qemu` user of the launcher image. */
export const POD_UID = 107;

const KEEP_CAPS = '-all,+net_bind_service';

/** The command prefix that drops from root to the pod's user before the monitor starts (inside the private root). */
export function dropToPodUser(): string[] {
  return [
    'setpriv',
    `--reuid=${POD_UID}`,
    `--regid=${POD_UID}`,
    '--clear-groups',
    `--inh-caps=${KEEP_CAPS}`,
    `--ambient-caps=${KEEP_CAPS}`,
    `--bounding-set=${KEEP_CAPS}`,
    '--no-new-privs',
    '--',
  ];
}

/**
 * Hands every directory under run/ to the pod's user, as the pod's emptyDir volumes are, and the sockets there
 * (virt-handler's notify socket) too. Files stay as they are: the container disk and kernel are hard links to the
 * caller's files (a chown would change those too), and the pod only reads them.
 */
export function handPodDirsToUser(runRoot: string): void {
  // The one directory under run/ that tools/sandbox/private-root.sh makes (for libvirt's sockets) when the pod starts:
  // made here first, so it is the user's too.
  fs.mkdirSync(path.join(runRoot, 'run/libvirt'), { recursive: true });
  const walk = (dir: string) => {
    fs.chownSync(dir, POD_UID, POD_UID);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.isSocket()) fs.chownSync(path.join(dir, entry.name), POD_UID, POD_UID);
    }
  };
  walk(path.join(runRoot, 'run'));
}
