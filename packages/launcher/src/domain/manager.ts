// DomainManager: the operations behind the Cmd RPCs (docs/behaviour.md#syncvirtualmachine, #other-operations). Modifying operations hold the
// domain lock, as KubeVirt's do; Kill, Delete, Reset, SoftReboot and reads do not.
import { hasLibvirtCode } from '../adapters/libvirt.js';
import type { Connection, Domain } from '../adapters/libvirt.js';
import type { VMIRequest } from '../gen/kubevirt/cmd/v1/cmd.js';
import { InvalidRequestError, errorMessage, isNoDomain } from '../errors.js';
import { log } from '../log.js';
import { parseVmiRequest } from '../vmi.js';
import type { VmiView } from '../vmi.js';
import { domainJson } from './domain-json.js';
import { domainStatsPayload } from './stats-payload.js';
import { DirtyRateMeter } from './dirty-rate.js';
import { Mutex } from './lock.js';
import type { MetadataCache } from './metadata.js';
import { STATE } from './state.js';
import type { SyncEnv } from './sync/env.js';

export class DomainNotFoundError extends Error {
  constructor() {
    super('Domain not found.');
    this.name = 'DomainNotFoundError';
  }
}

/** Runs a Kill/Delete body; an error meaning "already done" by a racing call is success. */
async function settled(body: () => Promise<void>, already: string): Promise<void> {
  try {
    await body();
  } catch (err) {
    // OPERATION_INVALID: "domain is not running" (destroy), "cannot undefine transient domain" (a racing Delete).
    if (!isNoDomain(err) && !hasLibvirtCode(err, 'OPERATION_INVALID')) throw err;
    log.info(already, { reason: errorMessage(err) });
  }
}

/** A Sync that arrives after the stop signal: starting a guest the launcher is about to stop helps no one. */
export class ShuttingDownError extends Error {
  constructor(readonly signal: string) {
    super(`virt-launcher is shutting down (${signal}): not starting or changing the domain`);
    this.name = 'ShuttingDownError';
  }
}

export class DomainManager {
  private readonly lock = new Mutex();
  private readonly pausedByUser = new Set<string>();
  private closing: string | undefined;

  constructor(
    /** `<ns>_<name>` from the flags; empty when unknown. GetDomain prefers it over other domains. */
    private readonly domainName: string,
    private readonly env: SyncEnv,
  ) {}

  private get conn(): Connection {
    return this.env.conn();
  }

  get metadata(): MetadataCache {
    return this.env.metadata;
  }

  /** What the sync steps use; the migration RPCs (migration/) run the same pre-start steps on a target. */
  get syncEnv(): SyncEnv {
    return this.env;
  }

  private async lookup(vmi: VmiView): Promise<Domain | undefined> {
    try {
      return await this.conn.lookupDomainByName(vmi.domainName);
    } catch (err) {
      if (isNoDomain(err)) return undefined;
      throw err;
    }
  }

  /**
   * After the stop signal: Syncs not yet running are refused, and this resolves once the one in flight (if
   * any) is done, so the caller then sees whatever domain that Sync made and can stop it.
   */
  async close(signal: string): Promise<void> {
    this.closing ??= signal;
    await this.lock.run(async () => undefined);
  }

  sync(request: VMIRequest): Promise<VmiView> {
    return this.lock.run(async () => {
      if (this.closing) throw new ShuttingDownError(this.closing);
      // The sync pipeline (context, converter adapter, storage, define/start) is loaded at the first sync:
      // readiness does not need it, and a launcher that is never asked to sync never pays for it.
      const { syncVmi } = await import('./sync/pipeline.js');
      return syncVmi(this.env, request, this.pausedByUser);
    });
  }

  pause(request: VMIRequest): Promise<void> {
    return this.lock.run(async () => {
      const vmi = parseVmiRequest(request.vmi?.vmiJson);
      const dom = await this.lookup(vmi);
      if (!dom) throw new DomainNotFoundError();
      if ((await dom.getState()).stateCode === STATE.running) {
        await dom.suspend();
        this.pausedByUser.add(vmi.uid);
        log.info(`Signaled pause for ${vmi.name}`);
      } else log.info(`Domain is not running for ${vmi.name}`);
    });
  }

  unpause(request: VMIRequest): Promise<void> {
    return this.lock.run(async () => {
      const vmi = parseVmiRequest(request.vmi?.vmiJson);
      const dom = await this.lookup(vmi);
      if (!dom) throw new DomainNotFoundError();
      if ((await dom.getState()).stateCode === STATE.paused) {
        await dom.resume();
        this.pausedByUser.delete(vmi.uid);
        log.info(`Signaled unpause for ${vmi.name}`);
      } else log.info(`Domain is not paused for ${vmi.name}`);
    });
  }

  /** ACPI power-off (libvirt's default shutdown mode without a guest agent). */
  shutdown(request: VMIRequest): Promise<void> {
    return this.lock.run(async () => {
      const vmi = parseVmiRequest(request.vmi?.vmiJson);
      const dom = await this.lookup(vmi);
      if (!dom) return;
      const { stateCode: state } = await dom.getState();
      if (state === STATE.running || state === STATE.paused) {
        await dom.shutdown();
        log.info(`Signaled graceful shutdown for ${vmi.name}`);
        this.metadata.update((m) => {
          m.GracePeriod ??= { DeletionGracePeriodSeconds: vmi.terminationGracePeriodSeconds };
          m.GracePeriod.DeletionTimestamp ??= new Date().toISOString();
        });
      }
    });
  }

  /**
   * Stops the domain; idempotent. The handler may send Kill and Delete together while a pod goes away: a domain
   * that vanishes (or stops) between the lookup, the state read and the destroy is already where Kill wants it.
   */
  async kill(domainName: string): Promise<void> {
    await settled(async () => {
      const dom = await this.conn.lookupDomainByName(domainName);
      const { stateCode: state } = await dom.getState();
      if (state === STATE.running || state === STATE.paused || state === STATE.shuttingDown) {
        await dom.destroy({ graceful: true });
        log.info('Domain stopped.');
      } else log.info('Domain not running, paused or shut down, nothing to do.');
    }, 'Domain already stopped.');
  }

  /** Undefines the domain (keeping NVRAM); idempotent for the same reason as kill. */
  async delete(request: VMIRequest): Promise<void> {
    const vmi = parseVmiRequest(request.vmi?.vmiJson);
    await settled(async () => {
      const dom = await this.conn.lookupDomainByName(vmi.domainName);
      try {
        await dom.undefine({ keepNvram: true });
      } catch (err) {
        // Drivers without NVRAM support (the test driver) reject the flag (VIR_ERR_INVALID_ARG): nothing to keep.
        if (!hasLibvirtCode(err, 'INVALID_ARG')) throw err;
        await dom.undefine();
      }
      log.info('Domain undefined.');
    }, 'Domain already undefined.');
  }

  async reset(request: VMIRequest): Promise<void> {
    const vmi = parseVmiRequest(request.vmi?.vmiJson);
    // KubeVirt's ResetVMI answers the lookup's own libvirt error (NO_DOMAIN text) when the domain is missing.
    const dom = await this.conn.lookupDomainByName(vmi.domainName);
    await dom.reset();
  }

  /** No guest agent is tracked yet, so this is the ACPI power button path. */
  async softReboot(request: VMIRequest): Promise<void> {
    const vmi = parseVmiRequest(request.vmi?.vmiJson);
    const doc = JSON.parse(vmi.raw.toString('utf8')) as {
      spec?: { domain?: { features?: { acpi?: { enabled?: boolean } } } };
    };
    if (doc.spec?.domain?.features?.acpi?.enabled === false) {
      throw new InvalidRequestError('VMI neither have the agent connected nor the ACPI feature enabled');
    }
    const dom = await this.lookup(vmi);
    if (!dom) throw new DomainNotFoundError();
    await dom.reboot();
  }

  /** JSON of the first domain, or "" when there is none (the handler reads that as "does not exist"). */
  async getDomainJson(): Promise<string> {
    const domains = await this.conn.listAllDomains();
    const dom = domains.find((d) => d.name === this.domainName) ?? domains[0];
    if (!dom) return '';
    const { stateCode: state, reasonCode: reason } = await dom.getState();
    const xml = await dom
      .getXMLDesc({ inactive: state === STATE.shutoff || state === STATE.noState })
      .catch(() => undefined);
    return JSON.stringify(domainJson({ domainName: dom.name, xml, state, reason, metadata: this.metadata.get() }));
  }

  /** KubeVirt's stats groups and flags, the device alias map and vCPU affinity from the live XML (stats-payload). */
  getDomainStats(): Promise<string> {
    return domainStatsPayload(this.conn, this.domainName);
  }

  private dirtyRate: DirtyRateMeter | undefined;

  /** GetDomainDirtyRateStats: QEMU's measured dirty rate in MB/s (one 1 s measurement, reused for 3 s). */
  getDirtyRateMbps(): Promise<number> {
    this.dirtyRate ??= new DirtyRateMeter(() => this.conn, this.domainName);
    return this.dirtyRate.megabytesPerSecond();
  }

  /** SyncVirtualMachineCPUs / SyncVirtualMachineMemory: resize the running guest, under the domain lock. */
  resizeRunning(request: VMIRequest, what: 'cpus' | 'memory'): Promise<void> {
    return this.lock.run(async () => {
      if (this.closing) throw new ShuttingDownError(this.closing);
      const rpc = await import('./sync/runtime/rpc.js');
      const call = what === 'cpus' ? rpc.syncCpusRequest : rpc.syncMemoryRequest;
      await call(this.conn, request.vmi?.vmiJson);
    });
  }

  getQemuVersion(): Promise<string> {
    return this.conn.getHypervisorVersion();
  }
}
