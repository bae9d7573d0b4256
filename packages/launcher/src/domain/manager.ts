// DomainManager: the operations behind the Cmd RPCs (launcher.md §6). Modifying operations hold the
// domain lock, as KubeVirt's do; Kill, Delete, Reset, SoftReboot and reads do not.
import type { Connection, Domain } from '../adapters/libvirt.js';
import type { VMIRequest } from '../gen/kubevirt/cmd/v1/cmd.js';
import { InvalidRequestError, isNoDomain } from '../errors.js';
import { log } from '../log.js';
import { parseVmiRequest } from '../vmi.js';
import type { VmiView } from '../vmi.js';
import { domainJson } from './domain-json.js';
import { domainStatsJson } from './stats-json.js';
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

export class DomainManager {
  private readonly lock = new Mutex();
  private readonly pausedByUser = new Set<string>();

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

  private async lookup(vmi: VmiView): Promise<Domain | undefined> {
    try {
      return await this.conn.lookupDomainByName(vmi.domainName);
    } catch (err) {
      if (isNoDomain(err)) return undefined;
      throw err;
    }
  }

  sync(request: VMIRequest): Promise<VmiView> {
    return this.lock.run(async () => {
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
      if ((await dom.getState()).state === STATE.running) {
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
      if ((await dom.getState()).state === STATE.paused) {
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
      const { state } = await dom.getState();
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

  async kill(domainName: string): Promise<void> {
    let dom: Domain;
    try {
      dom = await this.conn.lookupDomainByName(domainName);
    } catch (err) {
      if (isNoDomain(err)) return;
      throw err;
    }
    const { state } = await dom.getState();
    if (state === STATE.running || state === STATE.paused || state === STATE.shuttingDown) {
      try {
        await dom.destroy({ graceful: true });
      } catch (err) {
        if (!isNoDomain(err)) throw err;
      }
      log.info('Domain stopped.');
    } else log.info('Domain not running, paused or shut down, nothing to do.');
  }

  async delete(request: VMIRequest): Promise<void> {
    const vmi = parseVmiRequest(request.vmi?.vmiJson);
    const dom = await this.lookup(vmi);
    if (!dom) return;
    try {
      await dom.undefine({ keepNvram: true });
    } catch (err) {
      // Drivers without NVRAM support (the test driver) reject the flag (VIR_ERR_INVALID_ARG): nothing to keep.
      if ((err as { code?: number }).code !== 8) throw err;
      await dom.undefine();
    }
    log.info('Domain undefined.');
  }

  async reset(request: VMIRequest): Promise<void> {
    const vmi = parseVmiRequest(request.vmi?.vmiJson);
    const dom = await this.lookup(vmi);
    if (!dom) throw new DomainNotFoundError();
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
    const { state, reason } = await dom.getState();
    const xml = await dom
      .getXMLDesc({ inactive: state === STATE.shutoff || state === STATE.noState })
      .catch(() => undefined);
    return JSON.stringify(domainJson({ domainName: dom.name, xml, state, reason, metadata: this.metadata.get() }));
  }

  async getDomainStats(): Promise<string> {
    const stats = (await this.conn.getAllDomainStats()) as Array<Parameters<typeof domainStatsJson>[0]>;
    const record = stats.find((s) => s.name === this.domainName) ?? stats[0];
    if (!record) throw new Error('empty DomainStats');
    return JSON.stringify(domainStatsJson(record), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  }

  getQemuVersion(): Promise<string> {
    return this.conn.getHypervisorVersion();
  }
}
