// FreezeVirtualMachine / UnfreezeVirtualMachine as KubeVirt's storage manager does them: idempotent (the
// agent's guest-fsfreeze-status decides), all filesystems at once, and a safety thaw after
// unfreezeTimeoutSeconds (0: none) so a backup tool that dies between the two calls cannot leave the guest
// frozen. A new Freeze or an Unfreeze cancels the pending safety thaw.
import { log } from '../log.js';
import { fsFreezeStatusFrom } from './convert.js';
import type { AgentDomain } from './types.js';

export class FreezeRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FreezeRefusedError';
  }
}

export class FreezeRequestError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
  ) {
    super(`freeze: ${field} ${JSON.stringify(value)} must be a whole number of seconds >= 0`);
    this.name = 'FreezeRequestError';
  }
}

/** virt-handler's deadlines for Freeze (its extended timeout) and Unfreeze (its long one), cmd-client.go. */
export const FREEZE_CALLER_MS = 60_000;
export const UNFREEZE_CALLER_MS = 20_000;

export interface FreezeOptions {
  /** The domain, its agent calls bounded to end before a caller that waits `callerMs` gives up. */
  lookup: (domainName: string, callerMs: number) => Promise<AgentDomain>;
  /** A live migration runs: KubeVirt refuses to freeze then. */
  migrationInProgress: () => boolean;
  /** After a freeze or thaw: the freeze status the poller reports should follow at once. */
  onStatusChange: (status: string) => void;
}

export class FreezeControl {
  private safetyTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: FreezeOptions) {}

  private async status(dom: AgentDomain): Promise<string> {
    return fsFreezeStatusFrom(await dom.qemuAgentCommand({ execute: 'guest-fsfreeze-status' }));
  }

  async freeze(domainName: string, vmiName: string, unfreezeTimeoutSeconds: number): Promise<void> {
    if (!Number.isInteger(unfreezeTimeoutSeconds) || unfreezeTimeoutSeconds < 0) {
      throw new FreezeRequestError('unfreezeTimeoutSeconds', unfreezeTimeoutSeconds);
    }
    if (this.o.migrationInProgress()) {
      throw new FreezeRefusedError('failed to freeze VMI, VMI is currently during migration');
    }
    const dom = await this.o.lookup(domainName, FREEZE_CALLER_MS);
    if ((await this.status(dom)) === 'frozen') return;
    await dom.fsFreeze();
    this.o.onStatusChange('frozen');
    this.cancelSafetyThaw();
    if (unfreezeTimeoutSeconds !== 0) {
      this.safetyTimer = setTimeout(() => {
        this.safetyTimer = undefined;
        log.warning(
          `Unfreeze was not called for vmi ${vmiName} for more then ${unfreezeTimeoutSeconds}s, initiating unfreeze`,
        );
        this.unfreeze(domainName).catch((err: unknown) =>
          log.error('safety unfreeze failed', { reason: err instanceof Error ? err.message : String(err) }),
        );
      }, unfreezeTimeoutSeconds * 1000);
      this.safetyTimer.unref();
    }
  }

  async unfreeze(domainName: string): Promise<void> {
    this.cancelSafetyThaw();
    const dom = await this.o.lookup(domainName, UNFREEZE_CALLER_MS);
    // A status that cannot be read does not stop the thaw; an already thawed guest is left alone (no hook rerun).
    const status = await this.status(dom).catch(() => undefined);
    if (status === 'thawed') return;
    await dom.fsThaw();
    this.o.onStatusChange('thawed');
  }

  /** Whether a safety thaw is pending (for GetDomain-independent checks and tests). */
  get safetyThawPending(): boolean {
    return this.safetyTimer !== undefined;
  }

  cancelSafetyThaw(): void {
    if (this.safetyTimer) clearTimeout(this.safetyTimer);
    this.safetyTimer = undefined;
  }
}
