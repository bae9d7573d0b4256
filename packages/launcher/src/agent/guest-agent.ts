// The launcher's guest agent: connected state from libvirt's agent-lifecycle events (and the live XML at
// attach), the poller running while connected and the domain not paused, the store behind GetGuestInfo /
// GetUsers / GetFilesystems and the GetDomain overlay, and the calls that go through the agent: GuestPing,
// Exec, Freeze/Unfreeze, SoftReboot and the guest time after Unpause.
import { hasLibvirtCode } from '../adapters/libvirt.js';
import type { DomainStatusOverlay } from '../domain/domain-status-overlay.js';
import { GUEST_AGENT_CHANNEL } from '../domain/domain-json.js';
import { STATE } from '../domain/state.js';
import { errorMessage } from '../errors.js';
import { log } from '../log.js';
import { AgentCallGate, AgentDeadlineError, background, forHandler, gatedDomain } from './call-gate.js';
import type { AgentCallBudget } from './call-gate.js';
import { guestExec } from './exec.js';
import type { ExecResult } from './exec.js';
import { FreezeControl } from './freeze.js';
import { GuestTimeSetter } from './guest-time.js';
import { AgentPoller } from './poller.js';
import { AgentStore } from './store.js';
import { DEFAULT_AGENT_INTERVALS } from './types.js';
import type {
  AgentConnection,
  AgentDomain,
  AgentIntervals,
  AgentLifecycleEvent,
  DomainLifecycleEvent,
  K8sEventSink,
} from './types.js';

export interface GuestAgentOptions {
  /** `<ns>_<name>`; empty: the first domain an event names. */
  domainName: string;
  conn: () => AgentConnection;
  /**
   * The connection the agent calls use (their own, so that calls waiting on a stuck agent never hold the
   * request slots GetDomain and the other RPCs need on `conn`); `conn` when absent or not up.
   */
  callConn?: () => AgentConnection | undefined;
  intervals?: AgentIntervals;
  /** The agent's state or an announced fact changed: send a MODIFIED domain event. */
  onChange?: () => void;
  /** The VMI's name (--name), for the GuestAgentPingFailed message; without it no event is sent, as KubeVirt. */
  vmiName?: string;
  /** Kubernetes events about the VMI (GuestAgentPing failures). */
  sendEvent?: K8sEventSink;
  /** A live migration runs (Freeze is refused, a failed GuestPing is not a failure). */
  migrationInProgress?: () => boolean;
}

/** How long before the caller's own deadline (virt-handler's cmd-client) an agent RPC gives up. */
const CALLER_MARGIN_MS = 2_000;
/** virt-handler's deadlines (cmd-client): 5 s beyond a ping's or exec's own timeout, 20 s for SoftReboot. */
const HANDLER_SHORT_MS = 5_000;
const HANDLER_LONG_MS = 20_000;

/** The agent-call budget of an RPC virt-handler waits `callerMs` for. */
export const handlerBudget = (callerMs: number): AgentCallBudget => forHandler(callerMs - CALLER_MARGIN_MS);

/** Paused for a reason that is not a fault: a GuestPing failure then is not the guest's fault. */
const HEALTHY_PAUSE_REASONS = new Set([1, 2, 3, 4, 7, 8, 9, 11, 12]);

export class GuestAgent {
  readonly store = new AgentStore();
  readonly poller: AgentPoller;
  readonly freezer: FreezeControl;
  readonly time: GuestTimeSetter;
  readonly gate = new AgentCallGate();
  private domainName: string;
  /** undefined until an event or the live XML says. */
  private connected: boolean | undefined;
  private paused = false;
  private attachedTo: AgentConnection | undefined;

  constructor(private readonly o: GuestAgentOptions) {
    this.domainName = o.domainName;
    this.poller = new AgentPoller(
      () => this.lookup(undefined, background()),
      this.store,
      o.intervals ?? DEFAULT_AGENT_INTERVALS,
    );
    this.freezer = new FreezeControl({
      lookup: (name, callerMs) => this.lookup(name, handlerBudget(callerMs)),
      migrationInProgress: () => o.migrationInProgress?.() ?? false,
      onStatusChange: (status) => this.store.store('fsFreezeStatus', status),
    });
    this.time = new GuestTimeSetter((name) => this.lookup(name, background()));
    this.store.onAnnouncedChange(() => this.o.onChange?.());
  }

  get isConnected(): boolean {
    return this.connected === true;
  }

  /**
   * The domain on the agent's connection, its agent calls through the gate under `budget` (a background
   * budget when none is given); the lookup itself waits no longer than the budget either.
   */
  async lookup(name = this.domainName, budget: AgentCallBudget = background()): Promise<AgentDomain> {
    const conn = this.o.callConn?.() ?? this.o.conn();
    return gatedDomain(await conn.lookupDomainByName(name), this.gate, budget);
  }

  private readonly onAgentEvent = (e: AgentLifecycleEvent): void => {
    if (!this.follows(e.name)) return;
    log.info(`GuestAgentLifecycle event state ${e.stateCode} with reason ${e.reasonCode} received`);
    if (e.state === 'connected') this.setConnected(true);
    else if (e.state === 'disconnected') this.setConnected(false);
    this.o.onChange?.();
  };

  private readonly onDomainEvent = (e: DomainLifecycleEvent): void => {
    if (!this.follows(e.name)) return;
    if (e.event === 'suspended') {
      this.paused = true;
      this.poller.stop();
    } else if (e.event === 'resumed') {
      this.paused = false;
      if (this.connected) this.poller.start();
    } else if (e.event === 'stopped' || e.event === 'undefined') {
      this.paused = false;
      this.connected = false;
      this.poller.stop();
      this.freezer.cancelSafetyThaw();
      this.store.clear();
    }
  };

  private follows(name: string): boolean {
    if (this.domainName === '') this.domainName = name;
    return name === this.domainName;
  }

  private setConnected(connected: boolean): void {
    this.connected = connected;
    if (connected && !this.paused) this.poller.start();
    if (!connected) this.poller.stop();
  }

  /** (Re)registers on a connection; reads the channel's state from the live XML (events of a gap are lost). */
  async attach(conn: AgentConnection): Promise<void> {
    if (this.attachedTo) {
      this.attachedTo.off('agentLifecycle', this.onAgentEvent);
      this.attachedTo.off('domainEvent', this.onDomainEvent);
    }
    conn.on('agentLifecycle', this.onAgentEvent);
    conn.on('domainEvent', this.onDomainEvent);
    this.attachedTo = conn;
    if (this.domainName === '') return;
    try {
      const dom = await conn.lookupDomainByName(this.domainName);
      this.paused = (await dom.getState()).stateCode === STATE.paused;
      const xml = await dom.getXMLDesc();
      const channel = new RegExp(`name=['"]${GUEST_AGENT_CHANNEL.replace(/\./g, '\\.')}['"][^>]*state=['"](\\w+)['"]`);
      const state = channel.exec(xml)?.[1];
      if (state === 'connected' || state === 'disconnected') this.setConnected(state === 'connected');
    } catch {
      // No domain yet: its agent-lifecycle events will tell.
    }
  }

  /** What GetDomain and the domain events add to the Status and the agent channel. */
  overlay(): DomainStatusOverlay {
    const facts = this.store.get();
    return {
      Interfaces: facts.interfaces,
      OSInfo: facts.osInfo,
      FSFreezeStatus: facts.fsFreezeStatus ? { Status: facts.fsFreezeStatus } : undefined,
      agentChannelState: this.connected === undefined ? undefined : this.connected ? 'connected' : 'disconnected',
    };
  }

  /** GuestPing: guest-ping within `timeoutSeconds`; a failure is forgiven while migrating or paused on purpose. */
  async ping(domainName: string, timeoutSeconds: number, vmiName = this.o.vmiName ?? ''): Promise<void> {
    const name = domainName || this.domainName;
    try {
      // virt-handler waits the ping's timeout + 5 s; libvirt's own default timeout is 5 s.
      const seconds = timeoutSeconds > 0 ? timeoutSeconds : 5;
      const dom = await this.lookup(name, handlerBudget(seconds * 1000 + HANDLER_SHORT_MS));
      await dom.qemuAgentCommand({ execute: 'guest-ping' }, timeoutSeconds > 0 ? timeoutSeconds : -1);
    } catch (err) {
      const unavailable =
        hasLibvirtCode(err, 'AGENT_UNRESPONSIVE') ||
        hasLibvirtCode(err, 'NO_DOMAIN') ||
        err instanceof AgentDeadlineError;
      if (unavailable && ((this.o.migrationInProgress?.() ?? false) || (await this.pausedButHealthy(name)))) {
        log.v(4).info(`GuestPing for ${name} failed with ${errorMessage(err)} but the VM is healthy; suppressing`);
        return;
      }
      log.warning('GuestAgentPing probe failed', { reason: errorMessage(err) });
      if (vmiName) {
        await this.o
          .sendEvent?.({
            type: 'Warning',
            reason: 'GuestAgentPingFailed',
            message: `GuestAgentPing probe failed for VMI ${vmiName}`,
          })
          .catch((e: unknown) => log.warning('Failed to send GuestAgentPingFailed event', { reason: errorMessage(e) }));
      }
      throw err;
    }
  }

  private async pausedButHealthy(name: string): Promise<boolean> {
    try {
      const s = await (await this.lookup(name)).getState();
      return s.stateCode === STATE.paused && HEALTHY_PAUSE_REASONS.has(s.reasonCode);
    } catch {
      // Not there (yet: a migration target) or gone under our feet: let the pod die peacefully.
      return true;
    }
  }

  async exec(
    domainName: string,
    command: string,
    args: readonly string[],
    timeoutSeconds: number,
  ): Promise<ExecResult> {
    const budget = handlerBudget(Math.max(timeoutSeconds, 0) * 1000 + HANDLER_SHORT_MS);
    return guestExec(await this.lookup(domainName || this.domainName, budget), command, args, timeoutSeconds);
  }

  /**
   * SoftReboot through the agent when the VMI says the agent is connected (its AgentConnected condition, as
   * KubeVirt decides); `fallback` (ACPI) otherwise. An unresponsive agent is not an error: the guest may be
   * going down already.
   */
  async softReboot(domainName: string, vmiAgentConnected: boolean, fallback: () => Promise<void>): Promise<void> {
    if (!vmiAgentConnected) return fallback();
    const dom = await this.lookup(domainName, handlerBudget(HANDLER_LONG_MS));
    try {
      await dom.reboot({ mode: 'agent' });
    } catch (err) {
      if (!hasLibvirtCode(err, 'AGENT_UNRESPONSIVE') && !(err instanceof AgentDeadlineError)) throw err;
    }
  }

  close(): void {
    this.poller.stop();
    this.freezer.cancelSafetyThaw();
    this.time.stop();
    if (this.attachedTo) {
      this.attachedTo.off('agentLifecycle', this.onAgentEvent);
      this.attachedTo.off('domainEvent', this.onDomainEvent);
    }
  }
}
