// KubeVirt's agent poller: while the agent is connected (and the domain not paused), groups of queries run on
// their own periods (--qemu-agent-*-interval); each group runs at once, then after 10 s, doubling up to its
// period. Failures are skipped: the next round tries again. Answers land in the AgentStore.
import { GuestInfoTypesValue } from './guest-info-types.js';
import {
  agentVersionFrom,
  filesystemsFrom,
  fsFreezeStatusFrom,
  hostnameFrom,
  interfacesFrom,
  osInfoFrom,
  timezoneFrom,
  usersFrom,
} from './convert.js';
import type { AgentStore } from './store.js';
import type { AgentDomain, AgentIntervals } from './types.js';

/** KubeVirt's first re-poll after a connect; the period then doubles up to the group's interval. */
export const POLL_INITIAL_MS = 10_000;

type Query = (dom: AgentDomain, store: AgentStore) => Promise<void>;

interface Worker {
  name: string;
  periodMs: number;
  query: Query;
}

const SYS_TYPES =
  GuestInfoTypesValue.INTERFACES | GuestInfoTypesValue.OS | GuestInfoTypesValue.HOSTNAME | GuestInfoTypesValue.TIMEZONE;

export function pollerWorkers(intervals: AgentIntervals): Worker[] {
  return [
    {
      name: 'version',
      periodMs: intervals.versionMs,
      query: async (dom, store) =>
        store.store('agent', agentVersionFrom(await dom.qemuAgentCommand({ execute: 'guest-info' }))),
    },
    {
      name: 'filesystems',
      periodMs: intervals.fileMs,
      query: async (dom, store) =>
        store.store('filesystems', filesystemsFrom(await dom.qemuAgentCommand({ execute: 'guest-get-fsinfo' }))),
    },
    {
      name: 'fsfreeze-status',
      periodMs: intervals.fsFreezeStatusMs,
      query: async (dom, store) =>
        store.store(
          'fsFreezeStatus',
          fsFreezeStatusFrom(await dom.qemuAgentCommand({ execute: 'guest-fsfreeze-status' })),
        ),
    },
    {
      name: 'sys',
      periodMs: intervals.sysMs,
      query: async (dom, store) => {
        const info = await dom.getGuestInfo(SYS_TYPES);
        store.store('interfaces', interfacesFrom(info));
        store.store('osInfo', osInfoFrom(info));
        store.store('hostname', hostnameFrom(info));
        store.store('timezone', timezoneFrom(info));
      },
    },
    {
      name: 'users',
      periodMs: intervals.userMs,
      query: async (dom, store) => store.store('users', usersFrom(await dom.getGuestInfo(GuestInfoTypesValue.USERS))),
    },
  ];
}

export class AgentPoller {
  private timers: NodeJS.Timeout[] = [];
  private generation = 0;

  constructor(
    private readonly domain: () => Promise<AgentDomain>,
    private readonly store: AgentStore,
    private readonly intervals: AgentIntervals,
  ) {}

  get running(): boolean {
    return this.timers.length > 0;
  }

  start(): void {
    if (this.running) return;
    const generation = ++this.generation;
    for (const worker of pollerWorkers(this.intervals)) {
      const slot = this.timers.length;
      const round = (delay: number): void => {
        const next = Math.min(delay * 2, worker.periodMs);
        void this.runOnce(worker.query).finally(() => {
          if (generation !== this.generation) return;
          this.timers[slot] = setTimeout(() => round(next), delay).unref();
        });
      };
      this.timers.push(setTimeout(() => round(Math.min(POLL_INITIAL_MS, worker.periodMs)), 0).unref());
    }
  }

  stop(): void {
    this.generation++;
    this.timers.forEach((t) => clearTimeout(t));
    this.timers = [];
  }

  /** Runs every query once now (after a freeze, a reconnect, or for a test). */
  async pollAll(): Promise<void> {
    await Promise.all(pollerWorkers(this.intervals).map((w) => this.runOnce(w.query)));
  }

  private async runOnce(query: Query): Promise<void> {
    try {
      await query(await this.domain(), this.store);
    } catch {
      // Not vital (KubeVirt skips a failed query too): the next round asks again.
    }
  }
}
