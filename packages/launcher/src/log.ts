// JSON-line logger with KubeVirt's keys (component, level, msg, pos, timestamp), so log tooling written for
// virt-launcher reads ours unchanged. `pos` is the caller's file:line, like KubeVirt's `file.go:123`.
import { basename } from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warning(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields` (KubeVirt's `log.Log.Object(vmi)` style). */
  with(fields: LogFields): Logger;
}

let sink: (line: string) => void = (line) => process.stderr.write(line + '\n');
let verbosity = 2;

/** Tests and the CLI can redirect or silence output. */
export function setLogSink(write: (line: string) => void): void {
  sink = write;
}

export function setVerbosity(v: number): void {
  verbosity = v;
}

function callerPosition(): string {
  // Frame 0 is "Error", 1 is callerPosition, 2 is emit, 3 is the level method, 4 is the caller.
  const frame = new Error().stack?.split('\n')[4] ?? '';
  const match = /([^\s(]+):(\d+):\d+\)?$/.exec(frame);
  return match ? `${basename(match[1] ?? '')}:${match[2]}` : 'unknown';
}

function emit(level: LogLevel, msg: string, base: LogFields, fields?: LogFields): void {
  if (level === 'debug' && verbosity < 3) return;
  const line = {
    component: 'virt-launcher',
    level,
    msg,
    pos: callerPosition(),
    timestamp: new Date().toISOString(),
    ...base,
    ...fields,
  };
  sink(JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

function makeLogger(base: LogFields): Logger {
  return {
    debug: (msg, fields) => emit('debug', msg, base, fields),
    info: (msg, fields) => emit('info', msg, base, fields),
    warning: (msg, fields) => emit('warning', msg, base, fields),
    error: (msg, fields) => emit('error', msg, base, fields),
    with: (fields) => makeLogger({ ...base, ...fields }),
  };
}

export const log: Logger = makeLogger({});
