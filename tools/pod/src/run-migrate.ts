// The `--migrate` tail of `virt-pod run`: migrate (migrate.ts), then show what a person would check: the guest did
// not reboot (its "alive <uptime>" lines go on from where they were), it keeps its address and the node still
// reaches its web server, now through the target pod. With --until-migrated the run ends 5 s after the guest ran on
// the target; otherwise the target pod runs the guest until Ctrl-C.
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import type { HypervisorDecision } from './hypervisor.js';
import { migrateToNewPod, type MigrationOutcome } from './migrate.js';
import type { TargetPod } from './migrate-target.js';
import type { PodProcess } from './pod-process.js';
import type { PodSpec } from './run-phases.js';
import type { RunState } from './run-state.js';
import { watchSerialConsole } from './serial-console.js';

const ALIVE = /VLT-GUEST: alive (\d+)/;

/** Seconds the guest must run on the target before --until-migrated ends the run. */
const SETTLE_SECONDS = 5;

export interface MigrateRunOutcome {
  migrated: boolean;
  outcome: MigrationOutcome;
}

export async function runMigration(
  s: RunState,
  spec: PodSpec,
  hypervisor: HypervisorDecision,
  sourcePod: PodProcess,
): Promise<MigrateRunOutcome> {
  const m = s.args.migration!;
  let sourceUptime: number | undefined;
  s.onConsoleLine = (line) => {
    const hit = ALIVE.exec(line);
    if (hit) sourceUptime = Number(hit[1]);
  };
  let targetUptime: number | undefined;
  let firstTargetUptime: number | undefined;
  // Attached before the migration starts: QEMU binds the socket when the incoming guest arrives, and the console
  // keeps no lines for a reader who comes later.
  const attach = (target: TargetPod) => {
    const console = watchSerialConsole(
      target.spec.layout.hostPath(`/var/run/kubevirt-private/${spec.uid}/virt-serial0`),
      (line) => {
        const hit = ALIVE.exec(line);
        if (hit) {
          targetUptime = Number(hit[1]);
          firstTargetUptime ??= targetUptime;
        }
        if (s.args.console) s.print(`  [target console] ${line}`);
      },
      s.abort.signal,
    );
    s.cleanup.push('target serial console', () => console.close());
  };
  const outcome = await migrateToNewPod(s, spec, hypervisor, sourcePod, m, attach);
  if (!outcome.completed || !outcome.target) {
    await reportSourceStillRuns(s, sourcePod, () => sourceUptime);
    return { migrated: false, outcome };
  }
  const target = outcome.target;
  const settleDeadline = Date.now() + 60_000;
  while (
    (targetUptime === undefined || targetUptime - (firstTargetUptime ?? 0) < SETTLE_SECONDS) &&
    Date.now() < settleDeadline
  ) {
    if (s.abort.signal.aborted) break;
    await sleep(250);
  }
  const continued = sourceUptime !== undefined && firstTargetUptime !== undefined && firstTargetUptime >= sourceUptime;
  s.print(
    `guest uptime: ${sourceUptime ?? '?'} s last seen in the source pod, ${firstTargetUptime ?? '?'} s first seen in the target pod` +
      (continued ? ' (no reboot)' : ' (NOT continued: the guest rebooted or went silent)'),
  );
  const inbound = await execa(
    'ip',
    ['netns', 'exec', target.net.nodeNs, 'busybox', 'nc', '-w', '5', target.net.podIp, '80'],
    {
      input: 'GET / HTTP/1.0\r\n\r\n',
      reject: false,
    },
  );
  const body = inbound.stdout.split('\n').pop()?.trim();
  s.print(
    body
      ? `node → target pod:80 reached the guest's web server: "${body}"`
      : 'node → target pod:80: no answer from the guest',
  );
  const migrated = continued && targetUptime !== undefined;
  if (!m.untilMigrated && !s.abort.signal.aborted) {
    s.print('the guest runs in the target pod: Ctrl-C shuts it down');
    await Promise.race([s.aborted, target.pod.exited]);
  }
  return { migrated, outcome };
}

/** After a failed migration the guest must still run where it was: its alive lines go on in the source pod. */
async function reportSourceStillRuns(s: RunState, pod: PodProcess, uptime: () => number | undefined): Promise<void> {
  const before = uptime();
  await sleep(3_000);
  const after = uptime();
  const running = pod.child.exitCode === null && after !== undefined && before !== undefined && after > before;
  s.print(
    running
      ? `the guest runs on in the source pod (uptime ${after} s)`
      : `the guest does not show as running in the source pod (uptime ${before ?? '?'} → ${after ?? '?'})`,
  );
  if (!s.args.migration?.untilMigrated && !s.abort.signal.aborted) {
    s.print('the guest is running: Ctrl-C shuts the pod down');
    await Promise.race([s.aborted, pod.exited]);
  }
}
