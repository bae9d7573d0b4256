// The launcher's logger: @virt-launcher/shared's JSON lines (KubeVirt's keys, the caller's file:line as pos)
// under the component name virt-launcher, with a sink and a verbosity the CLI and the tests may change later.
import { createLogger, type Logger } from '@virt-launcher/shared';

export type { LogFields, LogLevel, Logger } from '@virt-launcher/shared';

let sink: (line: string) => void = (line) => process.stderr.write(line + '\n');
let verbosity = 2;

/** Tests and the CLI can redirect or silence output. */
export function setLogSink(write: (line: string) => void): void {
  sink = write;
}

/** KubeVirt's verbosity: debug lines from 3 up. */
export function setVerbosity(v: number): void {
  verbosity = v;
}

export const log: Logger = createLogger({
  component: 'virt-launcher',
  level: () => (verbosity >= 3 ? 'debug' : 'info'),
  write: (line) => sink(line),
});
