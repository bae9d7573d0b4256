// KubeVirt traps Interrupt/HUP/INT/TERM/QUIT; the first one starts the shutdown, later ones are swallowed.
import { log } from '../log.js';

const trapped: NodeJS.Signals[] = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGQUIT'];

/**
 * A stop signal that came before the launcher was ready. KubeVirt installs its handler only once connected,
 * so a signal before that ends its process at once; ours cleans up first (server, daemons), then ends the
 * same way: the signal is raised again with its default action (see cli.ts).
 */
export class StoppedBySignal extends Error {
  constructor(readonly signal: string) {
    super(`received ${signal} before the launcher was ready`);
    this.name = 'StoppedBySignal';
  }
}

/**
 * By name, not instanceof: the bundled launcher's main sequence (dist/launcher-main.cjs) holds its own copy of the
 * class, so the error it throws is not an instance of the copy in the first file (scripts/bundle.ts).
 */
export function isStoppedBySignal(err: unknown): err is StoppedBySignal {
  return (
    err instanceof Error && err.name === 'StoppedBySignal' && typeof (err as { signal?: unknown }).signal === 'string'
  );
}

export interface StopSignal {
  /** Resolves with the signal name the first time one arrives. */
  readonly received: Promise<string>;
  readonly stopped: boolean;
  /** Lets internal causes (e.g. the domain is gone) take the same exit path. */
  trigger(reason: string): void;
}

export function trapSignals(): StopSignal {
  let resolve: (name: string) => void = () => {};
  let stopped = false;
  const received = new Promise<string>((r) => (resolve = r));
  const trigger = (name: string): void => {
    if (stopped) return;
    stopped = true;
    resolve(name);
  };
  for (const sig of trapped) {
    process.on(sig, () => {
      if (!stopped) log.info(`Received signal ${sig}`);
      trigger(sig);
    });
  }
  return {
    received,
    get stopped() {
      return stopped;
    },
    trigger,
  };
}
