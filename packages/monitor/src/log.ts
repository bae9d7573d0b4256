// JSON-lines logger with KubeVirt's keys (component, level, msg, pos, timestamp), written
// synchronously to stdout: the monitor may exit right after a line and must not lose it.
import { writeSync } from 'node:fs';

export type LogLevel = 'info' | 'warning' | 'error';

export interface Logger {
  /** Lines whose verbosity is above the configured one are dropped (KubeVirt's V(n)). */
  readonly verbosity: number;
  info(pos: string, msg: string, verbosity?: number): void;
  warning(pos: string, msg: string): void;
  error(pos: string, msg: string, reason?: unknown): void;
}

export const COMPONENT = 'virt-launcher-monitor';
export const DEFAULT_VERBOSITY = 2;

export interface LoggerOptions {
  verbosity?: number;
  /** Where lines go; defaults to stdout (fd 1). */
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
  const verbosity = options.verbosity ?? DEFAULT_VERBOSITY;
  const write = options.write ?? writeStdout;
  const emit = (level: LogLevel, pos: string, msg: string, reason?: unknown): void => {
    const entry: Record<string, string> = {
      component: COMPONENT,
      level,
      msg,
      pos,
      timestamp: new Date().toISOString(),
    };
    if (reason !== undefined) entry.reason = reason instanceof Error ? reason.message : String(reason);
    write(JSON.stringify(entry) + '\n');
  };
  return {
    verbosity,
    info: (pos, msg, v = 0) => {
      if (v <= verbosity) emit('info', pos, msg);
    },
    warning: (pos, msg) => emit('warning', pos, msg),
    error: (pos, msg, reason) => emit('error', pos, msg, reason),
  };
}
