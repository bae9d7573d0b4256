// Typed loader of the reaper addon (native/reaper.cc, built by `node-gyp rebuild` into
// build/Release). Loaded lazily so that importing the face costs nothing until a reaper runs.
import { createRequire } from 'node:module';
import { ReaperError } from './errors.js';

export interface ReapResult {
  pid: number;
  /** Raw wait status as returned by waitpid. */
  status: number;
  /** Exit code when the process exited normally, else null. */
  exitCode: number | null;
  /** Terminating signal number when it was killed, else null. */
  signal: number | null;
}

export interface ReaperAddon {
  setChildSubreaper(): void;
  isChildSubreaper(): boolean;
  zombieChildren(): number[];
  reap(pid: number): ReapResult | null;
  /** Reaps every exited child but `own`; stops at the first waitable pid of `own` (blockedBy). */
  reapWaitable(own: number[]): { reaped: ReapResult[]; blockedBy: number | null };
  raiseAmbientCapability(cap: number): boolean;
}

let addon: ReaperAddon | undefined;

export function loadAddon(): ReaperAddon {
  if (addon) return addon;
  try {
    const require = createRequire(import.meta.url);
    addon = require('../build/Release/reaper.node') as ReaperAddon;
    return addon;
  } catch (error) {
    throw new ReaperError('load addon', (error as Error).message);
  }
}

/** Wraps a native call so system-call failures surface as ReaperError with the errno. */
export function nativeCall<T>(operation: string, call: () => T): T {
  try {
    return call();
  } catch (error) {
    const e = error as Error & { errno?: number };
    throw new ReaperError(operation, e.message, e.errno);
  }
}
