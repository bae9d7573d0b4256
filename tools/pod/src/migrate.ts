// `virt-pod run --migrate`: plays both virt-handlers of a live migration on one machine. After the source guest has
// its lease: a target pod (migrate-target.ts), the node's proxies between the pods (migration-proxy.ts), then
// MigrateVirtualMachine on the source, watching its migration record (the domain's kubevirt metadata, read with
// GetDomain) until it ends; then FinalizeVirtualMachineMigration on the target, or SignalTargetPodCleanup and the
// target pod's removal when it failed. The downtime is libvirt's own figure, which the source launcher logs.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { VirtualMachineInstance } from '@virt-launcher/converter';
import fs from 'node:fs';
import path from 'node:path';
import type { MigrateArgs } from './args.js';
import type { HypervisorDecision } from './hypervisor.js';
import { startMigrationProxies } from './migration-proxy.js';
import { startTargetPod, type TargetPod } from './migrate-target.js';
import type { PodProcess } from './pod-process.js';
import type { PodSpec } from './run-phases.js';
import type { RunState } from './run-state.js';

/** How long the record may take to show an end before the node gives up on the migration. */
const MIGRATION_TIMEOUT_MS = 15 * 60_000;

export interface MigrationOutcome {
  completed: boolean;
  /** Why it failed ('' when it completed). */
  reason: string;
  seconds: number;
  downtimeMs?: number;
  target?: TargetPod;
  /** The source pod's exit code once it ended after a completed migration. */
  sourceExitCode?: number;
}

interface MigrationRecord {
  UID?: string;
  EndTimestamp?: string;
  Failed?: boolean;
  FailureReason?: string;
  AbortStatus?: string;
  Mode?: string;
}

/** KubeVirt makes it a block migration when a volume is neither a shared claim nor a shared host disk. */
export function isBlockMigration(vmi: VirtualMachineInstance): boolean {
  return (vmi.spec?.volumes ?? []).some((v) => {
    const vol = v as { persistentVolumeClaim?: object; dataVolume?: object; hostDisk?: { shared?: boolean } };
    return !vol.persistentVolumeClaim && !vol.dataVolume && !(vol.hostDisk && vol.hostDisk.shared);
  });
}

/** The VMI as both launchers see it during the migration: virt-controller's migration state on its status. */
export function migratingVmi(vmi: VirtualMachineInstance, migrationUid: string): VirtualMachineInstance {
  const name = vmi.metadata.name;
  const status = { ...((vmi as { status?: Record<string, unknown> }).status ?? {}) };
  status.migrationState = {
    migrationUid,
    sourcePod: `virt-launcher-${name}-source`,
    targetPod: `virt-launcher-${name}-target`,
    sourceNode: 'node',
    targetNode: 'node',
  };
  status.migrationMethod = isBlockMigration(vmi) ? 'BlockMigration' : 'LiveMigration';
  status.migrationTransport = 'Unix';
  return { ...structuredClone(vmi), status } as VirtualMachineInstance;
}

/** The handler's MigrationOptions (Go field names), KubeVirt's defaults unless the command line says otherwise. */
export function migrationOptionsJson(m: MigrateArgs): Buffer {
  return Buffer.from(
    JSON.stringify({
      Bandwidth: m.bandwidth ?? '0',
      ProgressTimeout: 150,
      CompletionTimeoutPerGiB: m.completionTimeoutPerGiB,
      MaxDowntimeMs: 300,
      UnsafeMigration: false,
      AllowAutoConverge: false,
      AllowPostCopy: false,
      AllowWorkloadDisruption: false,
    }),
  );
}

async function readRecord(s: RunState): Promise<MigrationRecord | undefined> {
  const res = await s.launcher!.call('getDomain', {}, 5_000);
  if (!res.domain) return undefined;
  const d = JSON.parse(res.domain) as { Spec?: { Metadata?: { KubeVirt?: { Migration?: MigrationRecord } } } };
  return d.Spec?.Metadata?.KubeVirt?.Migration;
}

/** Watches the source domain's record until it has an end; undefined when the source pod went away first. */
async function awaitRecordEnd(s: RunState, pod: PodProcess, uid: string): Promise<MigrationRecord | undefined> {
  const deadline = Date.now() + MIGRATION_TIMEOUT_MS;
  let gone = false;
  void pod.exited.then(() => (gone = true));
  let last: MigrationRecord | undefined;
  while (!gone && Date.now() < deadline && !s.abort.signal.aborted) {
    const record = await readRecord(s).catch(() => undefined);
    if (record?.UID === uid) {
      if (record.AbortStatus && record.AbortStatus !== last?.AbortStatus)
        s.print(`  migration abort: ${record.AbortStatus}`);
      last = record;
      if (record.EndTimestamp) return record;
    }
    await sleep(250);
  }
  return last?.EndTimestamp ? last : undefined;
}

/**
 * libvirt's own downtime figure (the completed job's `downtime`), which the source launcher logs with "Live migration
 * succeeded." in the pod's log.
 */
export function downtimeFromPodLog(logText: string): number | undefined {
  for (const line of logText.split('\n').reverse()) {
    if (!line.includes('Live migration succeeded.')) continue;
    try {
      const d = (JSON.parse(line) as { downtimeMs?: unknown }).downtimeMs;
      return typeof d === 'number' ? d : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export async function migrateToNewPod(
  s: RunState,
  spec: PodSpec,
  hypervisor: HypervisorDecision,
  sourcePod: PodProcess,
  m: MigrateArgs,
  /** Called once the target pod is ready, before the migration starts (e.g. to attach to its serial console). */
  onTarget?: (target: TargetPod) => void,
): Promise<MigrationOutcome> {
  if (m.afterSeconds > 0) await s.interruptible('the wait before migrating', sleep(m.afterSeconds * 1000));
  const migrationUid = randomUUID();
  const vmi = migratingVmi(spec.vmi, migrationUid);
  const vmiJson = Buffer.from(JSON.stringify(vmi));
  const block = isBlockMigration(vmi);
  s.print(`migration ${migrationUid}: ${block ? 'block' : 'live'} migration to a new pod`);
  const target = await startTargetPod(s, spec, vmi, hypervisor);
  onTarget?.(target);
  const proxies = await s.phase('migration proxies (source pod → target pod)', () =>
    startMigrationProxies({ source: spec.layout, target: target.spec.layout, uid: spec.uid, blockMigration: block }),
  );
  s.cleanup.push('migration proxies', () => proxies.close());

  const started = performance.now();
  const res = await s.launcher!.call(
    'migrateVirtualMachine',
    { vmi: { vmiJson }, options: migrationOptionsJson(m) },
    30_000,
  );
  if (!res.success) return failed(s, target, vmiJson, `MigrateVirtualMachine: ${res.message}`, started);
  if (m.cancelAfterSeconds !== undefined) {
    const cancelAt = m.cancelAfterSeconds * 1000;
    setTimeout(() => {
      s.print('  sending CancelVirtualMachineMigration');
      void s.launcher
        ?.call('cancelVirtualMachineMigration', { vmi: { vmiJson }, options: undefined })
        .then((r) => s.print(`  CancelVirtualMachineMigration: ${r.success ? 'ok' : r.message}`))
        .catch((err: Error) => s.print(`  CancelVirtualMachineMigration failed: ${err.message}`));
    }, cancelAt).unref();
  }
  const record = await awaitRecordEnd(s, sourcePod, migrationUid);
  if (!record) return failed(s, target, vmiJson, 'the migration record never showed an end', started);
  if (record.Failed) return failed(s, target, vmiJson, record.FailureReason ?? 'failed', started);
  const seconds = (performance.now() - started) / 1000;
  const podLog = await fs.promises.readFile(path.join(spec.runRoot, 'pod.log'), 'utf8').catch(() => '');
  const downtimeMs = downtimeFromPodLog(podLog);
  s.print(`migration: completed in ${seconds.toFixed(1)} s, downtime ${downtimeMs ?? '?'} ms`);
  const fin = await target.state.launcher!.call('finalizeVirtualMachineMigration', {
    vmi: { vmiJson },
    options: undefined,
  });
  s.print(`  FinalizeVirtualMachineMigration: ${fin.success ? 'ok' : fin.message}`);
  // virt-controller deletes the source pod once the migration is complete: kubelet's SIGTERM, and the launcher,
  // whose domain is off (Migrated), exits without a guest to shut down.
  await sourcePod.terminate();
  const sourceExitCode = await Promise.race([sourcePod.exited, sleep(90_000).then(() => undefined)]);
  s.print(
    sourceExitCode === undefined
      ? 'the source pod did not end within 90 s'
      : `source pod exited with ${sourceExitCode} (its domain: Shutoff, Migrated)`,
  );
  return { completed: true, reason: '', seconds, downtimeMs, target, sourceExitCode };
}

async function failed(
  s: RunState,
  target: TargetPod,
  vmiJson: Buffer,
  reason: string,
  started: number,
): Promise<MigrationOutcome> {
  const seconds = (performance.now() - started) / 1000;
  s.print(`migration: failed after ${seconds.toFixed(1)} s: ${reason}`);
  // virt-handler tells the target pod to go; then the pod is deleted (here: at once).
  await target.state.launcher
    ?.call('signalTargetPodCleanup', { vmi: { vmiJson }, options: undefined })
    .catch(() => undefined);
  await target.state.runCleanup();
  return { completed: false, reason, seconds };
}
