// libvirtd probes each QEMU binary by running it as `-machine none ... -qmp unix:<lib>/qmp-XXXXXX/... -daemonize`
// and talking QMP to it. QEMU daemonizes (new session, parent gone), so when the daemon is killed in the middle
// of a probe nobody ever tells that QEMU to quit: it waits on its QMP socket forever. Neither the daemon's
// process group nor its children reach it; only a scan of /proc does. A process is taken for one of our
// daemon's probes when all of these hold: its argv is a probe's (`-machine none...` and a `qmp-` QMP socket),
// it lives in this launcher's mount namespace (a pod's libvirt sees the same /var/lib/libvirt), and it started
// after this launcher did (an older one cannot be ours). Test and bench harnesses that SIGKILL a launcher in a
// private root end what is left in it (probes included) by that root's mount namespace (foreignMountNamespaces,
// killAllIn).
import { readdir, readFile, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
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

/** PIDs of QEMU capability probes living in one of `mountNamespaces` (readlink of /proc/PID/ns/mnt) and started
 * no earlier than `startedAfterTicks` (clock ticks since boot, /proc/PID/stat's starttime). */
export function findProbesIn(mountNamespaces: ReadonlySet<string>, startedAfterTicks = 0): Promise<number[]> {
  return findIn(mountNamespaces, (info) => isProbeArgv(info.argv) && info.startTicks >= startedAfterTicks);
}

async function findIn(mountNamespaces: ReadonlySet<string>, wanted: (info: ProcInfo) => boolean): Promise<number[]> {
  const found: number[] = [];
  if (mountNamespaces.size === 0) return found;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const info = await readProc(Number(entry));
    if (!info || !wanted(info)) continue;
    const ns = await readlink(`/proc/${entry}/ns/mnt`).catch(() => '');
    if (mountNamespaces.has(ns)) found.push(info.pid);
  }
  return found;
}

/** PIDs of QEMU capability probes of this launcher's daemons (see above). */
export async function findProbeOrphans(): Promise<number[]> {
  const [self, ownNs] = await Promise.all([readProc(process.pid), readlink('/proc/self/ns/mnt')]);
  return findProbesIn(new Set([ownNs]), self?.startTicks ?? 0);
}

/** SIGKILLs these PIDs, skipping those that are gone already. */
export function killPids(pids: readonly number[]): number[] {
  return pids.filter((pid) => {
    try {
      process.kill(pid, 'SIGKILL');
      return true;
    } catch {
      return false; // exited meanwhile
    }
  });
}

/** SIGKILLs the probes left by a daemon that is gone (nothing else may be talking to them). */
export async function killProbeOrphans(daemon: string): Promise<number[]> {
  const pids = killPids(await findProbeOrphans().catch(() => [] as number[]));
  for (const pid of pids) log.warning(`killed QEMU capability probe ${pid} left by ${daemon}`, { pid });
  return pids;
}

/**
 * The mount namespaces of these processes other than the caller's own. A harness reads them before it kills a
 * launcher's process tree: a private root's probes live in its namespace but are nobody's descendants.
 */
export async function foreignMountNamespaces(pids: readonly number[]): Promise<Set<string>> {
  const own = await readlink('/proc/self/ns/mnt');
  const all = await Promise.all(pids.map((pid) => readlink(`/proc/${pid}/ns/mnt`).catch(() => own)));
  return new Set(all.filter((ns) => ns !== own));
}

const SWEEP_GAP_MS = 50;
const MAX_SWEEPS = 20;

/**
 * SIGKILLs every process left in these mount namespaces (a test's or the bench's private root, never the caller's
 * own): what a pod's PID namespace does to all of the pod's processes when it ends. Besides the probes libvirt
 * daemonized, a harness that kills a launcher's tree right after it is ready can miss a daemon the launcher spawns in
 * that moment (virtlogd follows "Marked as ready"). A daemon killed a moment ago may also have a child that has not
 * exec'd yet, or a probe still forking into the background (-daemonize): sweeps repeat until two in a row, a moment
 * apart, find nothing new.
 */
export async function killAllIn(mountNamespaces: ReadonlySet<string>): Promise<number[]> {
  const killed = new Set<number>();
  for (let round = 0, quiet = 0; quiet < 2 && round < MAX_SWEEPS; round++) {
    const fresh = (await findIn(mountNamespaces, () => true)).filter((pid) => !killed.has(pid));
    for (const pid of killPids(fresh)) killed.add(pid);
    quiet = fresh.length > 0 ? 0 : quiet + 1;
    await sleep(SWEEP_GAP_MS);
  }
  return [...killed];
}
