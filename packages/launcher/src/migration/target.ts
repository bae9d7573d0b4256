// The target side of a live migration. SyncMigrationTarget runs KubeVirt's pre-start work for the incoming guest
// (the files the domain names: write layers over container disks, the cloud-init ISO, the DHCP server of the pod
// network) without defining or starting anything: the domain arrives from the source's libvirt. It also makes the
// migrationproxy directory where QEMU's incoming sockets appear for the node's proxy. Once the guest runs here,
// the incoming job is watched until it is over, and then the migration record gets its end.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { asMigrationDomain, preloadLibvirt } from '../adapters/libvirt.js';
import { errorMessage, isNoDomain } from '../errors.js';
import type { VMIRequest } from '../gen/kubevirt/cmd/v1/cmd.js';
import { log } from '../log.js';
import { STATE } from '../domain/state.js';
import { convertToDomain } from '../domain/sync/convert.js';
import type { SyncEnv } from '../domain/sync/env.js';
import { step } from '../domain/sync/env.js';
import { gatherContext } from '../domain/sync/gather-context.js';
import { linkImageVolumeFiles } from '../domain/sync/image-volumes.js';
import { prepareStorage } from '../domain/sync/prepare-storage.js';
import type { VmiView } from '../vmi.js';
import { readVmiMigration } from './vmi-migration.js';

/** How long the target waits for the guest to arrive and its incoming job to end before giving up the watch. */
const ARRIVAL_TIMEOUT_MS = 30 * 60_000;
const POLL_MS = 200;

export async function prepareMigrationTarget(env: SyncEnv, vmi: VmiView, request: VMIRequest): Promise<void> {
  const vlog = log.with({ name: vmi.name, namespace: vmi.namespace, uid: vmi.uid, kind: 'VirtualMachineInstance' });
  // The target pod has image volumes of its own: its links are made before anything reads the disks.
  if (env.flags.imageVolume) await step('link image volumes', vmi, () => linkImageVolumeFiles(env.paths, vmi));
  const context = await step('gather context', vmi, () => gatherContext(env, vmi, request.options));
  const { domainXml } = await step('convert', vmi, () => convertToDomain(vmi, context));
  vlog.info('Executing PreStartHook on VMI pod environment');
  if (vmi.uid) await mkdir(join(env.paths.privateDir, vmi.uid), { recursive: true, mode: 0o755 });
  await step('prepare network', vmi, () => env.prepareNetwork(vmi));
  await step('prepare storage', vmi, () => prepareStorage(env, vmi, domainXml));
  const mv = readVmiMigration(vmi);
  env.metadata.update((m) => {
    m.UID = vmi.uid;
    m.GracePeriod = { ...m.GracePeriod, DeletionGracePeriodSeconds: vmi.terminationGracePeriodSeconds };
    // Preparation re-runs fully on a retry; the record of the same migration keeps its start.
    if (m.Migration?.UID !== mv.migrationUid) {
      m.Migration = { UID: mv.migrationUid, StartTimestamp: new Date().toISOString(), Mode: 'PreCopy' };
    }
  });
  await mkdir(join(env.paths.shareDir, 'migrationproxy'), { recursive: true, mode: 0o755 });
  void watchIncoming(env, vmi.domainName);
}

/** Waits for the guest to run here, then for the incoming job to end, then stamps the record's end. */
async function watchIncoming(env: SyncEnv, domainName: string): Promise<void> {
  const face = await preloadLibvirt();
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (env.metadata.get().Migration?.EndTimestamp) return;
    try {
      const dom = asMigrationDomain(await env.conn().lookupDomainByName(domainName));
      const { stateCode } = await dom.getState();
      if (stateCode === STATE.running) {
        const job = await dom.getJobStats().catch(() => undefined);
        const incoming =
          job && job.type !== face.JobType.NONE && job.stats.operation === face.JobOperation.MIGRATION_IN;
        if (job && !incoming) {
          log.info('Incoming migration job completed, setting EndTimestamp');
          env.metadata.update((m) => {
            m.Migration = { ...m.Migration, EndTimestamp: new Date().toISOString() };
          });
          return;
        }
      }
    } catch (err) {
      if (!isNoDomain(err)) log.debug('waiting for the incoming domain', { reason: errorMessage(err) });
    }
    await sleep(POLL_MS);
  }
}

/**
 * FinalizeVirtualMachineMigration: KubeVirt sets the guest's clock through the guest agent and refreshes NICs
 * whose binding asks for it. No guest agent is tracked here, so the clock is left as it came (KubeVirt logs and
 * goes on when the agent does not answer either).
 */
export async function finalizeMigrationTarget(env: SyncEnv, vmi: VmiView): Promise<void> {
  const dom = await env.conn().lookupDomainByName(vmi.domainName);
  const { stateCode } = await dom.getState();
  if (stateCode !== STATE.running && stateCode !== STATE.paused) {
    throw new Error(`the migrated domain ${vmi.domainName} is not running here`);
  }
  log.info('no guest agent connected: guest time not set', { name: vmi.name, namespace: vmi.namespace });
}

/**
 * SignalTargetPodCleanup: when this pod is the migration's target pod (POD_NAME), the launcher stops waiting for a
 * domain that will not come and exits, as KubeVirt's does on its early-exit signal. Anyone else: nothing.
 */
export function signalTargetPodCleanup(vmi: VmiView, exit: () => void): boolean {
  const myPod = process.env.POD_NAME ?? '';
  const { targetPod } = readVmiMigration(vmi);
  if (!myPod || targetPod !== myPod) return false;
  log.info(`Signaled target pod ${myPod} to cleanup`, { name: vmi.name, namespace: vmi.namespace, uid: vmi.uid });
  exit();
  return true;
}
