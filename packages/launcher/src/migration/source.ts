// The source side of a live migration (MigrateVirtualMachine, CancelVirtualMachineMigration): KubeVirt's launcher
// answers the RPC at once and migrates in the background. The domain's migration metadata carries the record
// (start, end, failed and why, abort status, mode); each change becomes a MODIFIED domain event, which is how the
// handler learns the outcome. On success libvirt stops the source domain with reason Migrated.
import type { Connection, Domain, MigrationDomain } from '../adapters/libvirt.js';
import { asMigrationDomain, preloadLibvirt } from '../adapters/libvirt.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import type { MetadataCache, MigrationMetadata } from '../domain/metadata.js';
import { STATE } from '../domain/state.js';
import type { VmiView } from '../vmi.js';
import { ConvergenceTracker, migrationDataSizeGB } from './convergence.js';
import { MigrationMonitor } from './monitor.js';
import type { MigrationOptions } from './options.js';
import { diskTargetsToCopy, migrationCall, migrationFlagNames } from './params.js';
import { readVmiMigration } from './vmi-migration.js';

export interface MigrationEnv {
  conn: () => Connection;
  metadata: MetadataCache;
  shareDir: string;
  /** The launcher's daemons run in session mode (--run-as-nonroot): so do the target's. */
  sessionMode: boolean;
  /** Bytes of the pod's ephemeral disks (copied in a block migration), for the completion timeout. */
  ephemeralDiskBytes: () => Promise<number>;
}

export class MigrationRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationRefusedError';
  }
}

const now = () => new Date().toISOString();

export class MigrationSource {
  /** The migration running in the background, for tests and for a clean stop. */
  running: Promise<void> | undefined;
  private tracker: ConvergenceTracker | undefined;

  constructor(private readonly env: MigrationEnv) {}

  private get record(): MigrationMetadata | undefined {
    return this.env.metadata.get().Migration;
  }

  private setRecord(change: (m: MigrationMetadata) => void): void {
    this.env.metadata.update((m) => change((m.Migration ??= {})));
  }

  /**
   * Starts the migration and returns; a second call for the same migration while it runs is a no-op, and one for
   * another migration while one runs is refused: its record would replace the running one's, which would then
   * end under the newcomer's UID (read as failed) and could no longer be cancelled.
   */
  async start(vmi: VmiView, options: MigrationOptions): Promise<void> {
    const mv = readVmiMigration(vmi);
    if (!mv.hasMigrationState) throw new MigrationRefusedError('cannot migrate VMI until migrationState is ready');
    const existing = this.record;
    if (existing && existing.UID === mv.migrationUid) {
      if (!existing.EndTimestamp) return;
      throw new MigrationRefusedError(
        `migration job ${existing.UID} already executed, finished at ${existing.EndTimestamp}, failed: ${existing.Failed === true}, abortStatus: ${existing.AbortStatus ?? ''}`,
      );
    }
    if (existing?.StartTimestamp && !existing.EndTimestamp) {
      throw new MigrationRefusedError(
        `migration job ${mv.migrationUid || '(no UID)'} refused: migration job ${existing.UID ?? ''} is still running (started at ${existing.StartTimestamp})`,
      );
    }
    this.env.metadata.update((m) => {
      m.Migration = { UID: mv.migrationUid, StartTimestamp: now(), Mode: 'PreCopy' };
    });
    if (options.stallDetectorRequested)
      log.warning('stall detector options are not supported here: using the legacy convergence path');
    this.running = this.migrate(vmi, options).catch((err) =>
      log.error('migration failed unexpectedly', { reason: errorMessage(err) }),
    );
  }

  private async migrate(vmi: VmiView, options: MigrationOptions): Promise<void> {
    const vlog = log.with({ name: vmi.name, namespace: vmi.namespace, uid: vmi.uid, kind: 'VirtualMachineInstance' });
    vlog.info('Initiating live migration.');
    let monitor: MigrationMonitor | undefined;
    try {
      const face = await preloadLibvirt();
      const dom = asMigrationDomain(await this.env.conn().lookupDomainByName(vmi.domainName));
      const mv = readVmiMigration(vmi);
      const copiedDiskBytes = mv.blockMigration ? await this.env.ephemeralDiskBytes() : 0;
      this.tracker = new ConvergenceTracker(options, migrationDataSizeGB(mv.memoryBytes, copiedDiskBytes), Date.now());
      monitor = new MigrationMonitor(dom, this.tracker, face.JobType.UNBOUNDED, {
        startPostCopy: async () => {
          await dom.migrateStartPostCopy();
          this.setRecord((m) => (m.Mode = 'PostCopy'));
        },
        pause: async () => {
          await dom.suspend();
          this.setRecord((m) => (m.Mode = 'Paused'));
        },
        abort: (why) => {
          vlog.warning(why);
          this.abort(dom);
        },
      });
      monitor.start();
      const paused = (await dom.getState()).stateCode === STATE.paused;
      const migratableXml = await dom.getXMLDesc({ migratable: true });
      const copyDisks = mv.blockMigration ? diskTargetsToCopy(migratableXml, vmi, mv.migratedVolumes) : [];
      const call = migrationCall(
        {
          shareDir: this.env.shareDir,
          uid: vmi.uid,
          domainName: vmi.domainName,
          migratableXml,
          copyDisks,
          sessionMode: this.env.sessionMode,
        },
        options,
      );
      const flags = migrationFlagNames({ blockMigration: mv.blockMigration, paused }, options).reduce(
        (bits, name) => bits | face.MigrateFlags[name],
        0,
      );
      await dom.migrateToURI3(call.destUri, call.params, flags);
      await monitor.stop();
      // libvirt keeps the finished job's statistics: the downtime the guest saw at the switch-over.
      const done = await dom.getJobStats(face.JobStatsFlags.COMPLETED).catch(() => undefined);
      vlog.info('Live migration succeeded.', {
        downtimeMs: done?.stats.downtime,
        timeElapsedMs: done?.stats.time_elapsed,
      });
      this.finish(false, '');
    } catch (err) {
      await monitor?.stop();
      vlog.error('Live migration failed.', { reason: errorMessage(err) });
      this.finish(true, errorMessage(err));
    }
  }

  private finish(failed: boolean, reason: string): void {
    const record = this.record;
    if (!record || record.EndTimestamp) return;
    const why = failed && record.AbortStatus === 'Succeeded' ? 'Live migration has been aborted' : reason;
    this.setRecord((m) => {
      if (failed) {
        m.Failed = true;
        m.FailureReason = why;
      }
      m.EndTimestamp = now();
    });
  }

  /** CancelVirtualMachineMigration: aborts the running migration job once; ignored when nothing migrates. */
  async cancel(vmi: VmiView): Promise<void> {
    const record = this.record;
    if (!record || record.EndTimestamp || record.Failed || !record.StartTimestamp) {
      log.info('cancel migration ignored: vmi is not migrating');
      return;
    }
    if (record.AbortStatus === 'Aborting' || record.AbortStatus === 'Succeeded') {
      log.info(
        `cancel migration ignored: abort is already ${record.AbortStatus === 'Aborting' ? 'in progress' : 'succeeded'}`,
      );
      return;
    }
    const dom = asMigrationDomain(await this.env.conn().lookupDomainByName(vmi.domainName));
    this.abort(dom);
  }

  /** Marks the abort in progress and asks libvirt to abort the job; the outcome lands in AbortStatus. */
  private abort(dom: MigrationDomain): void {
    if (this.record?.AbortStatus === 'Aborting') return;
    this.setRecord((m) => (m.AbortStatus = 'Aborting'));
    if (this.tracker) this.tracker.abortInProgress = true;
    void (async () => {
      const face = await preloadLibvirt();
      try {
        const job = await dom.getJobStats();
        if (job.type !== face.JobType.UNBOUNDED) {
          log.info(`migration job is not active (type=${job.type}), nothing to abort`);
          this.setRecord((m) => (m.AbortStatus = 'Failed'));
          return;
        }
        await dom.abortJob();
        this.setRecord((m) => (m.AbortStatus = 'Succeeded'));
        log.info('Live migration abort succeeded');
      } catch (err) {
        log.error('failed to cancel migration', { reason: errorMessage(err) });
        this.setRecord((m) => (m.AbortStatus = 'Failed'));
      }
    })();
  }
}

export type { Domain };
