// GetDomainDirtyRateStats: how fast the guest dirties its memory, measured by QEMU over one second
// (docs/dirty-rate.md). As KubeVirt's launcher does: start a page-sampling calculation on the running or
// paused domain, wait the calculation period, then read the `dirtyrate` stats group every 200 ms for at
// most 1 s until it says "measured"; a result is reused for 3 s, so a handler polling every cycle does
// not keep QEMU measuring. Page sampling is the one mode QEMU 7.2 offers under TCG (dirty-bitmap makes
// that QEMU exit, dirty-ring needs KVM's dirty ring).
import type * as Libvirt from '@virt-launcher/libvirt';
import type { Connection, Domain } from '../adapters/libvirt.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';

/** libvirt's virDomainStatsTypes DIRTYRATE and virConnectGetAllDomainStatsFlags RUNNING | PAUSED. */
const STATS_DIRTYRATE = 512;
const ONLY_RUNNING_OR_PAUSED = 16 | 32;

/** virDomainDirtyRateStatus, with KubeVirt's names for the unfinished ones. */
const CALC_STATUS_NAMES: Record<number, string> = {
  0: 'DOMAIN_DIRTYRATE_UNSTARTED',
  1: 'DOMAIN_DIRTYRATE_MEASURING',
};
const MEASURED = 2;

export class DirtyRateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DirtyRateError';
  }
}

/** The domain calls the meter needs; the binding's Domain has them. */
type MeasurableDomain = Domain & Partial<Pick<Libvirt.Domain, 'startDirtyRateCalc'>>;
export type DirtyRateConnection = Pick<Connection, 'listAllDomains' | 'getAllDomainStats'>;

export interface DirtyRateOptions {
  /** Calculation period; KubeVirt's launcher asks for 1 s and never less. */
  calcSeconds?: number;
  /** How long to wait for the calculation before reading it; the period itself unless a test shortens it. */
  calcWaitMs?: number;
  /** How long a measurement is reused (KubeVirt: 3 s). */
  cacheMs?: number;
  pollMs?: number;
  pollTotalMs?: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class DirtyRateMeter {
  private cached: { value: number; at: number } | undefined;
  private inFlight: Promise<number> | undefined;
  private readonly calcSeconds: number;
  private readonly calcWaitMs: number;
  private readonly cacheMs: number;
  private readonly pollMs: number;
  private readonly pollTotalMs: number;

  constructor(
    private readonly conn: () => DirtyRateConnection,
    /** `<ns>_<name>`; empty: the first running domain. */
    private readonly domainName: string,
    options: DirtyRateOptions = {},
  ) {
    this.calcSeconds = Math.max(1, options.calcSeconds ?? 1);
    this.calcWaitMs = options.calcWaitMs ?? this.calcSeconds * 1000;
    this.cacheMs = options.cacheMs ?? 3000;
    this.pollMs = options.pollMs ?? 200;
    this.pollTotalMs = options.pollTotalMs ?? 1000;
  }

  /** Megabytes per second the guest dirtied over the last calculation period. */
  async megabytesPerSecond(): Promise<number> {
    if (this.cached && Date.now() - this.cached.at < this.cacheMs) return this.cached.value;
    // Concurrent callers share one measurement instead of restarting QEMU's.
    this.inFlight ??= this.measure().finally(() => (this.inFlight = undefined));
    const value = await this.inFlight;
    this.cached = { value, at: Date.now() };
    return value;
  }

  private async measure(): Promise<number> {
    const dom = await this.findDomain();
    if (!dom.startDirtyRateCalc) throw new DirtyRateError('the libvirt binding cannot start a dirty rate calculation');
    try {
      await dom.startDirtyRateCalc(this.calcSeconds, 'page-sampling');
    } catch (err) {
      // KubeVirt only warns here: the read below then reports why there is no result.
      log.warning("Can't start dirty rate calc", { reason: errorMessage(err) });
    }
    await sleep(this.calcWaitMs);
    const deadline = Date.now() + this.pollTotalMs;
    let last: Error;
    for (;;) {
      await sleep(this.pollMs);
      try {
        return await this.readResult(dom.name);
      } catch (err) {
        last = err as Error;
      }
      if (Date.now() >= deadline) break;
    }
    throw new DirtyRateError(`failed to get domain dirty rate stats: failed to get dirty rate stats: ${last.message}`);
  }

  private async findDomain(): Promise<MeasurableDomain> {
    const domains = (await this.conn().listAllDomains()) as MeasurableDomain[];
    const dom = domains.find((d) => d.name === this.domainName) ?? (this.domainName ? undefined : domains[0]);
    if (!dom) throw new DirtyRateError('failed to get domain dirty rate stats: no domain to measure');
    return dom;
  }

  /** The measured rate, or an error naming the calculation state (KubeVirt's texts). */
  private async readResult(name: string): Promise<number> {
    const records = await this.conn().getAllDomainStats({ types: STATS_DIRTYRATE, flags: ONLY_RUNNING_OR_PAUSED });
    const stats = records.find((r) => r.name === name)?.stats;
    if (!stats) throw new DirtyRateError('domain is not running');
    const status = stats['dirtyrate.calc_status'];
    if (typeof status !== 'number') throw new DirtyRateError('dirty rate stats calculation status is not set');
    if (status !== MEASURED) throw new DirtyRateError(`dirty calc status is ${CALC_STATUS_NAMES[status] ?? ''}`);
    const rate = stats['dirtyrate.megabytes_per_second'];
    if (typeof rate !== 'number') throw new DirtyRateError('Dirty rate MegabytesPerSecondSet is false');
    return rate;
  }
}
