// JSON log lines on stderr with KubeVirt's keys, so the programs' output reads like the rest of the pod's.
import process from 'node:process';

export type Level = 'info' | 'warning' | 'error' | 'critical';

export interface Logger {
  log(level: Level, msg: string, extra?: Record<string, unknown>): void;
}

export function createLogger(
  component: string,
  write: (line: string) => void = (line) => void process.stderr.write(line),
): Logger {
  return {
    log(level, msg, extra = {}) {
      const pos = new Error().stack?.split('\n')[2]?.match(/([^/\s(]+\.[jt]s):(\d+)/);
      write(
        JSON.stringify({
          component,
          level,
          msg,
          pos: pos ? `${pos[1]}:${pos[2]}` : '',
          timestamp: new Date().toISOString(),
          ...extra,
        }) + '\n',
      );
    },
  };
}
