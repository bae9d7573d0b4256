// The monitor's logger: @virt-launcher/shared's JSON lines (KubeVirt's keys, the caller's file:line as pos)
// under the component virt-launcher-monitor, written synchronously to stdout: the monitor may exit right after
// a line and must not lose it.
import { writeSync } from 'node:fs';
import { createLogger as createJsonLogger, type Logger } from '@virt-launcher/shared';

export type { Logger, LogLevel } from '@virt-launcher/shared';

export const COMPONENT = 'virt-launcher-monitor';
export const DEFAULT_VERBOSITY = 2;

export interface LoggerOptions {
  /** Lines of `v(n)` with n above this are dropped (KubeVirt's V(n)). */
  verbosity?: number;
  /** Where lines go, each ending in a newline; defaults to stdout (fd 1). */
  write?: (line: string) => void;
}

function writeStdout(line: string): void {
  try {
    writeSync(1, line);
  } catch {
    // stdout closed or full pipe: logging must never take the PID 1 down.
  }
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? writeStdout;
  return createJsonLogger({
    component: COMPONENT,
    verbosity: options.verbosity ?? DEFAULT_VERBOSITY,
    write: (line) => write(line + '\n'),
  });
}
