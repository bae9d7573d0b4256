// Every call that goes through the guest agent passes here. libvirt runs one agent command per domain at a
// time (each waits for the domain's agent job) and each one holds a request slot of our libvirt connection
// while it waits (libvirtd's max_client_requests, 5 by default): five poller groups waiting on a silent agent
// filled them all, and GetDomain and GuestPing queued behind them for 11-18 s. So one agent call is in flight at
// a time, a handler's call goes before any waiting poller call, and each call has a deadline shorter than its
// caller's: when it passes, the caller gets AgentDeadlineError at once (the libvirt call keeps its slot until
// libvirt itself gives up, so the next call waits for that, and never longer than its own deadline).

import type { AgentDomain } from './types.js';

/** Who waits for the call: a handler RPC (virt-handler) or the launcher's own poller and background work. */
export type AgentCallPriority = 'handler' | 'background';

export interface AgentCallBudget {
  priority: AgentCallPriority;
  /** Epoch milliseconds after which the caller no longer waits. */
  deadlineAt: number;
}

/** A poller or background call waits this long at most (nobody outside waits for it). */
export const BACKGROUND_CALL_MS = 10_000;

export const background = (ms = BACKGROUND_CALL_MS): AgentCallBudget => ({
  priority: 'background',
  deadlineAt: Date.now() + ms,
});

export const forHandler = (ms: number): AgentCallBudget => ({ priority: 'handler', deadlineAt: Date.now() + ms });

export class AgentDeadlineError extends Error {
  constructor(
    readonly call: string,
    readonly where: 'queued' | 'in flight',
  ) {
    super(`guest agent call ${call}: no answer before its deadline (${where}); the guest agent is not responding`);
    this.name = 'AgentDeadlineError';
  }
}

interface Waiter {
  priority: AgentCallPriority;
  start: () => void;
}

export class AgentCallGate {
  private busy = false;
  private readonly waiting: Waiter[] = [];

  /** How many calls wait for the slot (for tests and logs). */
  get queued(): number {
    return this.waiting.length;
  }

  run<T>(call: string, budget: AgentCallBudget, f: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const waiter: Waiter = {
        priority: budget.priority,
        start: () => {
          this.busy = true;
          let call$: Promise<T>;
          try {
            call$ = f();
          } catch (err) {
            call$ = Promise.reject(err);
          }
          call$.then(
            (v) => finish(() => resolve(v)),
            (e: unknown) => finish(() => reject(e)),
          );
          // The slot is held until libvirt answers, whether or not the caller still waits.
          void call$.catch(() => undefined).finally(() => this.release());
        },
      };
      const timer = setTimeout(
        () => {
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          finish(() => reject(new AgentDeadlineError(call, at >= 0 ? 'queued' : 'in flight')));
        },
        Math.max(0, budget.deadlineAt - Date.now()),
      );
      timer.unref?.();
      this.enqueue(waiter);
    });
  }

  private enqueue(waiter: Waiter): void {
    if (!this.busy) return waiter.start();
    // Handler calls go after the handler calls already waiting, before every background one.
    const firstBackground = this.waiting.findIndex((w) => w.priority === 'background');
    if (waiter.priority === 'handler' && firstBackground >= 0) this.waiting.splice(firstBackground, 0, waiter);
    else this.waiting.push(waiter);
  }

  private release(): void {
    this.busy = false;
    this.waiting.shift()?.start();
  }
}

/** The agent calls of AgentDomain: these go through the gate, the rest (state, XML) straight to libvirt. */
const AGENT_METHODS = [
  'qemuAgentCommand',
  'getGuestInfo',
  'fsFreeze',
  'fsThaw',
  'setTime',
  'authorizedSSHKeysSet',
  'reboot',
] as const;

/** `dom` with its agent calls through `gate` under `budget` (one budget for all the calls of one RPC). */
export function gatedDomain(dom: AgentDomain, gate: AgentCallGate, budget: AgentCallBudget): AgentDomain {
  const gated = Object.create(dom) as AgentDomain;
  for (const method of AGENT_METHODS) {
    const original = dom[method] as (...args: unknown[]) => Promise<unknown>;
    Object.defineProperty(gated, method, {
      value: (...args: unknown[]) => gate.run(method, budget, () => original.apply(dom, args)),
    });
  }
  return gated;
}
