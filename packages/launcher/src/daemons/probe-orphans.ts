// libvirtd probes each QEMU binary by running it as `-machine none ... -qmp unix:<lib>/qmp-XXXXXX/... -daemonize`
// and talking QMP to it. QEMU daemonizes (new session, parent gone), so when the daemon is killed in the middle
// of a probe nobody ever tells that QEMU to quit: it waits on its QMP socket forever. Neither the daemon's
// process group nor its children reach it; only a scan of /proc does. A process is taken for one of our
// daemon's probes when all of these hold: its argv is a probe's (`-machine none...` and a `qmp-` QMP socket),
// it lives in this launcher's mount namespace (a pod's libvirt sees the same /var/lib/libvirt), and it started
// after this launcher did (an older one cannot be ours).
import { readdir, readFile, readlink } from 'node:fs/promises';
import { log } from '../log.js';

interface ProcInfo {
  pid: number;
  argv: string[];
  startTicks: number;
}

async function readProc(pid: number): Promise<ProcInfo | undefined> {
  const [cmdline, stat] = await Promise.all([
    readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''),
    readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''),
  ]);
  if (!cmdline || !stat) return undefined;
  // Field 22 (starttime) counted from after the ")" that closes comm (comm may hold spaces).
  const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  return { pid, argv: cmdline.split('\0').filter(Boolean), startTicks };
}

export function isProbeArgv(argv: readonly string[]): boolean {
  const binary = argv[0]?.split('/').pop() ?? '';
  if (!binary.startsWith('qemu-system') && binary !== 'qemu-kvm') return false;
  const machine = argv[argv.indexOf('-machine') + 1] ?? '';
  const qmp = argv[argv.indexOf('-qmp') + 1] ?? '';
  return argv.includes('-machine') && /^none(,|$)/.test(machine) && /\/qmp-[^/]+\//.test(qmp);
}

/** PIDs of QEMU capability probes of this launcher's daemons (see above). */
export async function findProbeOrphans(): Promise<number[]> {
  const [self, ownNs] = await Promise.all([readProc(process.pid), readlink('/proc/self/ns/mnt')]);
  const since = self?.startTicks ?? 0;
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = await readProc(Number(entry));
    if (!info || !isProbeArgv(info.argv) || info.startTicks < since) continue;
    const ns = await readlink(`/proc/${entry}/ns/mnt`).catch(() => '');
    if (ns === ownNs) found.push(info.pid);
  }
  return found;
}

/** SIGKILLs the probes left by a daemon that is gone (nothing else may be talking to them). */
export async function killProbeOrphans(daemon: string): Promise<number[]> {
  const pids = await findProbeOrphans().catch(() => [] as number[]);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
      log.warning(`killed QEMU capability probe ${pid} left by ${daemon}`, { pid });
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}
