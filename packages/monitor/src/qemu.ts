// Surviving QEMU handling after the launcher exited: QEMU is daemonized by libvirt and re-parented
// to PID 1, so it can outlive virt-launcher. Ending the pid namespace would SIGKILL the guest;
// instead it gets SIGTERM (QEMU shuts down cleanly on it) and a bounded wait.
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { QemuSignalError } from './errors.js';
import { isDescendant, listPids, readCmdline, readStat, type ProcStat } from './proc.js';

export interface QemuProcess {
  pid: number;
  comm: string;
  argv0: string;
}

const isQemuName = (name: string): boolean => name.startsWith('qemu-system') || name === 'qemu-kvm';

/**
 * Live (non-zombie) QEMU processes this monitor is responsible for. A process counts as QEMU
 * when its comm (truncated to 15 chars by the kernel) or the basename of its argv[0] is
 * `qemu-system*` or `qemu-kvm`. KubeVirt matches any cmdline containing the text, which also
 * catches a shell that merely mentions it; matching the program name avoids that. As PID 1 every
 * process of the namespace is ours; otherwise only our descendants are, so a monitor running
 * beside other VMs never touches theirs.
 */
export function findQemuProcesses(self = process.pid, procRoot = '/proc'): QemuProcess[] {
  const stats: ProcStat[] = [];
  for (const pid of listPids(procRoot)) {
    const stat = readStat(pid, procRoot);
    if (stat) stats.push(stat);
  }
  const parents = new Map(stats.map((s) => [s.pid, s.ppid]));
  const found: QemuProcess[] = [];
  for (const stat of stats) {
    if (stat.pid === self || stat.state === 'Z' || stat.state === 'X') continue;
    if (self !== 1 && !isDescendant(stat.pid, self, parents)) continue;
    const argv0 = basename(readCmdline(stat.pid, procRoot)[0] ?? '');
    if (isQemuName(stat.comm) || isQemuName(argv0)) found.push({ pid: stat.pid, comm: stat.comm, argv0 });
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (error) {
    // Gone between the scan and the signal: that is what we wanted.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
    throw new QemuSignalError(pid, sig, error as Error);
  }
}

export interface StopQemuOptions {
  timeoutSeconds: number;
  /** Poll period while waiting; KubeVirt polls once a second, a shorter one ends sooner. */
  pollMs?: number;
  /** Called before every poll: reaping the zombie of a QEMU that exited is what makes it "gone". */
  beforePoll?: () => void;
  find?: () => QemuProcess[];
  onFound?: (survivors: QemuProcess[]) => void;
  onKill?: (survivors: QemuProcess[]) => void;
}

export type StopQemuOutcome = 'none' | 'stopped' | 'killed';

/**
 * SIGTERM every surviving QEMU, wait up to timeoutSeconds for all to vanish, then SIGKILL the
 * rest. 'killed' means the grace period ran out (KubeVirt then exits 1).
 */
export async function stopQemuSurvivors(options: StopQemuOptions): Promise<StopQemuOutcome> {
  const find = options.find ?? (() => findQemuProcesses());
  options.beforePoll?.();
  const survivors = find();
  if (survivors.length === 0) return 'none';
  options.onFound?.(survivors);
  for (const qemu of survivors) signal(qemu.pid, 'SIGTERM');
  const deadline = Date.now() + options.timeoutSeconds * 1000;
  const pollMs = options.pollMs ?? 200;
  for (;;) {
    options.beforePoll?.();
    const left = find();
    if (left.length === 0) return 'stopped';
    if (Date.now() >= deadline) {
      options.onKill?.(left);
      for (const qemu of left) signal(qemu.pid, 'SIGKILL');
      return 'killed';
    }
    await sleep(pollMs);
  }
}
