// JSON-line logger with KubeVirt's keys (component, level, msg, pos, timestamp), so tooling written for
// KubeVirt's logs reads ours unchanged. `pos` is the caller's file:line, like KubeVirt's `file.go:123`; in a bundled
// program, the file:line of the module the call came from (position-map.ts).
import { lineMaker } from './log-line.js';
import { framePosition } from './position-map.js';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warning(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose lines all carry `fields` too (KubeVirt's `log.Log.Object(vmi)` style). */
  with(fields: LogFields): Logger;
  /** KubeVirt's `V(n)`: this logger when `n` is at most the verbosity, else one that writes nothing. */
  v(n: number): Logger;
}

export interface LoggerOptions {
  /** KubeVirt's `component` key: the program's name (`virt-launcher`, `virt-dhcp`, ...). */
  component: string;
  /** The lowest level written, or a function read per line (a CLI flag may change it later). Default info. */
  level?: LogLevel | (() => LogLevel);
  /** Receives each line without its newline; default: stderr. */
  write?: (line: string) => void;
  /** Fields every line carries (a subcomponent, an object's name). */
  fields?: LogFields;
  /** KubeVirt's verbosity, for `v(n)`; default 2, KubeVirt's default. */
  verbosity?: number;
}

const RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warning: 2, error: 3 };

// Frames of a position stack: [0] "Error", [1] callerPosition, [2] emit, [3] the level method, [4] its caller.
const CALLER_FRAME = 4;

// A frame's text to its position: the same frame always names the same file:line (a file's position map is read
// once), and a program logs from few places, so the regular expression and the map lookup run once per call site.
// Bounded, for a program that would log from very many.
const positions = new Map<string, string>();
const POSITIONS_MAX = 4096;

/**
 * The caller's "file:line", read from a stack only as deep as needed, and only for a line that is written:
 * a disabled level costs a comparison (measured cost: README).
 */
function callerPosition(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = CALLER_FRAME;
  const stack = new Error().stack;
  Error.stackTraceLimit = limit;
  const frame = stack?.split('\n')[CALLER_FRAME] ?? '';
  let pos = positions.get(frame);
  if (pos === undefined) {
    const match = /([^\s(]+):(\d+):\d+\)?\s*$/.exec(frame);
    pos = match ? framePosition(match[1] ?? '', Number(match[2])) : 'unknown';
    if (positions.size >= POSITIONS_MAX) positions.clear();
    positions.set(frame, pos);
  }
  return pos;
}

const toStderr = (line: string): void => {
  process.stderr.write(line + '\n');
};

export function createLogger(options: LoggerOptions): Logger {
  const { component, level = 'info', write = toStderr, verbosity = 2 } = options;
  const minimum = typeof level === 'function' ? () => RANK[level()] : () => RANK[level];
  const make = (base: LogFields): Logger => {
    const line = lineMaker(component, base);
    const emit = (lineLevel: LogLevel, msg: string, fields: LogFields | undefined): void => {
      if (RANK[lineLevel] < minimum()) return;
      write(line(lineLevel, msg, callerPosition(), new Date().toISOString(), fields));
    };
    const logger: Logger = {
      debug: (msg, fields) => emit('debug', msg, fields),
      info: (msg, fields) => emit('info', msg, fields),
      warning: (msg, fields) => emit('warning', msg, fields),
      error: (msg, fields) => emit('error', msg, fields),
      with: (fields) => make({ ...base, ...fields }),
      v: (n) => (n <= verbosity ? logger : silentLogger),
    };
    return logger;
  };
  return make(options.fields ?? {});
}

/** A logger that writes nothing (tests, library callers that did not ask for logs). */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warning() {},
  error() {},
  with: () => silentLogger,
  v: () => silentLogger,
};
