// The launcher's logger: @virt-launcher/shared's JSON lines (KubeVirt's keys, the caller's file:line as pos)
// under the component name virt-launcher, with a sink and a verbosity the CLI and the tests may change later.
import { createLogger, type Logger } from '@virt-launcher/shared';

export type { LogFields, LogLevel, Logger } from '@virt-launcher/shared';

interface LogSettings {
  sink: (line: string) => void;
  verbosity: number;
}

// One settings object per process, not per copy of this module: the bundled launcher holds this module twice
// (dist/cli.js and dist/launcher-main.cjs, scripts/bundle.ts), and a verbosity set by the CLI must hold in both.
const SETTINGS = Symbol.for('virt-launcher.log-settings');
const registry = globalThis as typeof globalThis & { [SETTINGS]?: LogSettings };
const settings: LogSettings = (registry[SETTINGS] ??= {
  sink: (line) => process.stderr.write(line + '\n'),
  verbosity: 2,
});

/** Tests and the CLI can redirect or silence output. */
export function setLogSink(write: (line: string) => void): void {
  settings.sink = write;
}

/** KubeVirt's verbosity: debug lines from 3 up. */
export function setVerbosity(v: number): void {
  settings.verbosity = v;
}

export const log: Logger = createLogger({
  component: 'virt-launcher',
  level: () => (settings.verbosity >= 3 ? 'debug' : 'info'),
  write: (line) => settings.sink(line),
});
