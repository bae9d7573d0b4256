// JSON-lines logger with KubeVirt's keys (component, level, msg, pos, timestamp).

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const rank: Record<LogLevel, number> = { debug: 0, info: 1, warning: 2, error: 3 };

/** "file.ts:line" of the caller of the logger method, as KubeVirt's `pos` ("server.go:123"). */
function callerPosition(): string {
  // Only the frames we read: a full stack trace per log line would cost more than handling the packet.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 5;
  const stack = new Error().stack?.split('\n') ?? [];
  Error.stackTraceLimit = limit;
  // [0] "Error", [1] callerPosition, [2] write, [3] the level method, [4] the caller.
  const frame = stack[4] ?? '';
  const m = /([^/\\()\s]+):(\d+):\d+\)?\s*$/.exec(frame);
  return m ? `${m[1]}:${m[2]}` : 'unknown';
}

export function jsonLogger(
  component: string,
  options: { level?: LogLevel; write?: (line: string) => void } = {},
): Logger {
  const min = rank[options.level ?? 'info'];
  const out = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (rank[level] < min) return;
    const record = { component, level, msg, pos: callerPosition(), timestamp: new Date().toISOString(), ...fields };
    out(JSON.stringify(record));
  };
  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warning', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
