// Starts the pod's compute container as kubelet would: in the pod's network namespace, in new UTS and PID
// namespaces (the monitor is PID 1; the hostname is the VMI's), inside a private root for libvirt, running
// virt-launcher-monitor -- virt-launcher with KubeVirt's flags.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import type { KvmDevice } from './hypervisor.js';
import { mountImageVolumes, readImageVolumeMounts } from './image-volumes.js';
import { dropToPodUser } from './non-root.js';

export interface PodProcessOptions {
  repo: string;
  podNs: string;
  runRoot: string;
  hostname: string;
  name: string;
  namespace: string;
  uid: string;
  gracePeriodSeconds: number;
  /** The pod's /dev/kvm, and whether the launcher may emulate (only when virt-pod decided on emulation). */
  kvm: KvmDevice;
  allowEmulation: boolean;
  /** KubeVirt's default pod: uid/gid 107, NET_BIND_SERVICE only, the launcher with --run-as-nonroot (non-root.ts). */
  nonRoot?: boolean;
  logFile: string;
  onLogLine: (line: string) => void;
}

export interface PodProcess {
  child: ResultPromise;
  exited: Promise<number>;
  /** SIGTERM to the monitor (PID 1 of the pod), as kubelet does when the pod is deleted. */
  terminate(): Promise<void>;
  kill(): void;
}

export function startPodProcess(o: PodProcessOptions): PodProcess {
  // The monitor package's native PID 1 (no JavaScript engine: ~1 MiB instead of ~45 MiB per pod).
  const monitor = path.join(o.repo, 'packages/monitor/build/virt-launcher-monitor');
  // The package's bin, as the image's /usr/bin/virt-launcher: it runs dist/cli.js under the argv[0] virt-launcher,
  // the first word KubeVirt's own check of the pod's processes looks for in `ps axo command`.
  const launcher = path.join(o.repo, 'packages/launcher/bin/virt-launcher');
  const privateRoot = path.join(o.repo, 'tools/sandbox/private-root.sh');
  const log = fs.createWriteStream(o.logFile);
  // A pod with image volumes (image-volumes.ts): kubelet mounts them before the container starts, and
  // virt-controller's template passes --image-volume whenever its ImageVolume gate is on.
  const imageVolumes = readImageVolumeMounts(o.runRoot);
  const child = execa(
    'ip',
    [
      'netns',
      'exec',
      o.podNs,
      'unshare',
      '--uts',
      '--pid',
      '--fork',
      '--mount-proc',
      '--kill-child',
      '--',
      'bash',
      '-c',
      'hostname "$0" && exec "$@"',
      o.hostname,
      privateRoot,
      'exec',
      o.runRoot,
      '--kvm',
      o.kvm,
      '--',
      ...mountImageVolumes(imageVolumes ?? []),
      ...(o.nonRoot ? dropToPodUser() : []),
      monitor,
      '--',
      launcher,
      '--name',
      o.name,
      '--namespace',
      o.namespace,
      '--uid',
      o.uid,
      '--grace-period-seconds',
      String(o.gracePeriodSeconds),
      '--qemu-timeout',
      '5m',
      ...(o.allowEmulation ? ['--allow-emulation'] : []),
      ...(o.nonRoot ? ['--run-as-nonroot'] : []),
      ...(imageVolumes ? ['--image-volume'] : []),
    ],
    // detached: its own session and process group. A Ctrl-C on the terminal must reach only virt-pod, which then
    // stops the pod as kubelet would (SIGTERM to PID 1); the daemons inside must live until the guest powered off.
    { all: true, buffer: false, reject: false, stdin: 'ignore', detached: true },
  );
  let pending = '';
  child.all?.on('data', (d: Buffer) => {
    log.write(d);
    pending += d.toString();
    let i: number;
    while ((i = pending.indexOf('\n')) >= 0) {
      o.onLogLine(pending.slice(0, i));
      pending = pending.slice(i + 1);
    }
  });
  const exited = child.then((r) => {
    log.end();
    return typeof r.exitCode === 'number' ? r.exitCode : 255;
  });

  // unshare --fork waits for its child, the pod's PID 1: that is the process to signal.
  const podPid1 = async (): Promise<number | undefined> => {
    for (let i = 0; i < 20 && child.pid; i++) {
      const r = await execa('pgrep', ['-P', String(child.pid)], { reject: false });
      const pid = Number(r.stdout.trim().split('\n')[0]);
      if (pid > 0) return pid;
      await sleep(100);
    }
    return undefined;
  };

  return {
    child,
    exited,
    terminate: async () => {
      const pid = await podPid1();
      if (pid) process.kill(pid, 'SIGTERM');
    },
    kill: () => void child.kill('SIGKILL'),
  };
}

/**
 * Lines worth showing without --verbose: KubeVirt's milestones, the launcher's warnings and errors. The daemons' own
 * lines (subcomponent libvirtd/virtlogd) stay in pod.log and --verbose, and so does the launcher's "SyncVirtualMachine
 * failed": virt-pod prints that reason itself, once.
 */
export function isMilestone(line: string): boolean {
  try {
    const entry = JSON.parse(line) as { level?: string; msg?: string; subcomponent?: string };
    if (entry.subcomponent === 'libvirtd' || entry.subcomponent === 'virtlogd') return false;
    if (entry.msg === 'SyncVirtualMachine failed') return false;
    if (entry.level === 'error' || entry.level === 'warning') return true;
    return /^(Marked as ready|Domain defined\.|Domain started\.|Synced vmi|Signaled graceful shutdown|Grace Period expired|Domain stopped\.|Process .* is gone!|Exiting\.\.\.|Connected to libvirt|Successfully connected to domain notify|DHCP)/.test(
      entry.msg ?? '',
    );
  } catch {
    return true;
  }
}
