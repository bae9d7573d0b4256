// After an Unpause KubeVirt sets the guest clock to the host's (the clock stood still while paused): every
// second for up to 60 s until the agent accepts it. Best effort: no agent configured or the call unsupported
// ends it at once. As in KubeVirt this runs once per launcher (its sync.Once), a later call cancels nothing.
import { hasLibvirtCode } from '../adapters/libvirt.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import type { AgentDomain } from './types.js';

export const SET_TIME_TRY_MS = 1000;
export const SET_TIME_GIVE_UP_MS = 60_000;

export class GuestTimeSetter {
  private started = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly lookup: (domainName: string) => Promise<AgentDomain>,
    private readonly tryMs = SET_TIME_TRY_MS,
    private readonly giveUpMs = SET_TIME_GIVE_UP_MS,
  ) {}

  /** Starts the retries (only the first call does anything); resolves once it is set or given up. */
  setAfterUnpause(domainName: string): Promise<void> {
    if (this.started) return Promise.resolve();
    this.started = true;
    const until = Date.now() + this.giveUpMs;
    let latest: string | undefined;
    return new Promise((resolve) => {
      const attempt = async (): Promise<void> => {
        try {
          const dom = await this.lookup(domainName);
          await dom.setTime({ time: new Date() });
          log.info('guest VM time sync finished successfully');
          return resolve();
        } catch (err) {
          if (hasLibvirtCode(err, 'OPERATION_UNSUPPORTED')) {
            log.warning('failed to set time: not supported', { reason: errorMessage(err) });
            return resolve();
          }
          if (hasLibvirtCode(err, 'ARGUMENT_UNSUPPORTED')) {
            log.warning('failed to set time: agent not configured', { reason: errorMessage(err) });
            return resolve();
          }
          latest = hasLibvirtCode(err, 'AGENT_UNRESPONSIVE')
            ? `failed to set time: QEMU agent unresponsive, ${errorMessage(err)}`
            : `failed to sync guest time, ${errorMessage(err)}`;
        }
        if (Date.now() + this.tryMs > until) {
          log.error('failed to sync guest time', { reason: latest });
          return resolve();
        }
        this.timer = setTimeout(() => void attempt(), this.tryMs);
        this.timer.unref();
      };
      this.timer = setTimeout(() => void attempt(), this.tryMs);
      this.timer.unref();
    });
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
