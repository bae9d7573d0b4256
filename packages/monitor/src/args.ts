// Command-line parsing. Two forms are accepted:
//  * explicit:  virt-launcher-monitor [monitor flags] -- COMMAND [ARGS...]
//    Flags before `--` that the monitor does not own (e.g. --grace-period-seconds N, a
//    virt-launcher flag) are passed to COMMAND, appended after ARGS, the way KubeVirt passes
//    every flag through to the launcher. After, not before: COMMAND may be an interpreter
//    (`node cli.js …`) that would take a flag placed before its script as its own option.
//  * KubeVirt's: virt-launcher-monitor [flags...]   (no `--`)
//    COMMAND is /usr/bin/virt-launcher and gets every argument except the bare
//    `--keep-after-failure`, exactly like cmd/virt-launcher-monitor. The monitor reads its own
//    flags from the same list and tolerates all unknown ones.
import { MonitorUsageError } from './errors.js';

export const DEFAULT_COMMAND = '/usr/bin/virt-launcher';
export const DEFAULT_CONTAINER_DISK_DIR = '/var/run/kubevirt/container-disks';
export const DEFAULT_QEMU_STOP_TIMEOUT_SECONDS = 10;
export const CONTAINER_DISK_DIR_ENV = 'VIRT_LAUNCHER_MONITOR_CONTAINER_DISK_DIR';
export const VERBOSITY_ENV = 'VIRT_LAUNCHER_LOG_VERBOSITY';

export interface ParsedArgs {
  command: string;
  args: string[];
  keepAfterFailure: boolean;
  containerDiskDir: string;
  /** From -v/--v; the environment may override it (see resolveVerbosity). */
  verbosity: number | undefined;
  /** Parsed for compatibility, unused by the logic (as in KubeVirt). */
  uid: string | undefined;
  /** How long a surviving QEMU gets after SIGTERM before the monitor gives up (and SIGKILLs). */
  qemuStopTimeoutSeconds: number;
}

type FlagName = 'keep-after-failure' | 'container-disk-dir' | 'uid' | 'v' | 'qemu-stop-timeout-seconds';
const VALUE_FLAGS = new Set<FlagName>(['container-disk-dir', 'uid', 'v', 'qemu-stop-timeout-seconds']);
/** Only meaningful in the explicit form: in KubeVirt's form they would leak into virt-launcher. */
const EXPLICIT_ONLY = new Set<FlagName>(['qemu-stop-timeout-seconds']);

function flagName(arg: string): { name: string; inline: string | undefined } | undefined {
  const match = /^--?([A-Za-z][\w-]*)(?:=(.*))?$/s.exec(arg);
  if (!match || !match[1]) return undefined;
  // pflag's shorthand for verbosity is -v; --v is klog's spelling. Both mean the same.
  return { name: match[1], inline: match[2] };
}

function parseBool(flag: string, value: string | undefined): boolean {
  if (value === undefined || value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new MonitorUsageError(`invalid boolean value "${value}" for --${flag}`, flag);
}

function parseNumber(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new MonitorUsageError(`invalid numeric value "${value}" for --${flag}`, flag);
  }
  return n;
}

interface FlagScan {
  own: Map<FlagName, string | undefined>;
  passthrough: string[];
}

/** Walks flags, collecting the monitor's own; everything else is kept in order for the child. */
function scanFlags(list: string[], explicit: boolean): FlagScan {
  const own = new Map<FlagName, string | undefined>();
  const passthrough: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const arg = list[i] as string;
    const parsed = flagName(arg);
    const name = parsed?.name as FlagName | undefined;
    const known = name !== undefined && (name === 'keep-after-failure' || VALUE_FLAGS.has(name));
    if (!parsed || !known || (!explicit && EXPLICIT_ONLY.has(name))) {
      passthrough.push(arg);
      continue;
    }
    let value = parsed.inline;
    if (VALUE_FLAGS.has(name) && value === undefined) {
      const next = list[i + 1];
      if (next === undefined) throw new MonitorUsageError(`flag needs an argument: ${arg}`, name);
      value = next;
      i++;
      if (!explicit) passthrough.push(arg, next);
    } else if (!explicit && arg !== '--keep-after-failure') {
      // Only the bare boolean form is stripped in KubeVirt's form; `=true` reaches the child.
      passthrough.push(arg);
    }
    own.set(name, value);
  }
  return { own, passthrough };
}

export const USAGE = `usage: virt-launcher-monitor [--grace-period-seconds N] [--keep-after-failure] [--container-disk-dir DIR]
                             [--qemu-stop-timeout-seconds N] [-v N] -- COMMAND [ARGS...]
       virt-launcher-monitor [virt-launcher flags...]        (KubeVirt's form: COMMAND is ${DEFAULT_COMMAND})

PID 1 of the virt-launcher pod: runs COMMAND, reaps every orphan (QEMU is re-parented here), forwards SIGTERM,
SIGINT, SIGHUP and SIGQUIT to COMMAND as SIGTERM, exits with COMMAND's exit code (255 when it died by a signal),
and gives any QEMU still alive SIGTERM and up to 10 s before exiting. Flags it does not own, such as
--grace-period-seconds, are passed on to COMMAND.`;

/** `--help` / `-h` before any `--`: the one flag the monitor answers itself in both forms. */
export function wantsHelp(argv: readonly string[]): boolean {
  const separator = argv.indexOf('--');
  const flags = separator >= 0 ? argv.slice(0, separator) : argv;
  return flags.includes('--help') || flags.includes('-h');
}

export function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ParsedArgs {
  const separator = argv.indexOf('--');
  const explicit = separator >= 0;
  const flagPart = explicit ? argv.slice(0, separator) : [...argv];
  const { own, passthrough } = scanFlags(flagPart, explicit);

  let command = DEFAULT_COMMAND;
  let args = passthrough;
  if (explicit) {
    const rest = argv.slice(separator + 1);
    if (rest.length === 0 || !rest[0]) throw new MonitorUsageError('missing COMMAND after --', '--');
    command = rest[0];
    args = [...rest.slice(1), ...passthrough];
  }

  const verbosityFlag = own.get('v');
  const timeout = own.get('qemu-stop-timeout-seconds');
  return {
    command,
    args,
    keepAfterFailure: own.has('keep-after-failure')
      ? parseBool('keep-after-failure', own.get('keep-after-failure'))
      : false,
    containerDiskDir: own.get('container-disk-dir') ?? env[CONTAINER_DISK_DIR_ENV] ?? DEFAULT_CONTAINER_DISK_DIR,
    verbosity: verbosityFlag === undefined ? undefined : parseNumber('v', verbosityFlag),
    uid: own.get('uid'),
    qemuStopTimeoutSeconds:
      timeout === undefined ? DEFAULT_QEMU_STOP_TIMEOUT_SECONDS : parseNumber('qemu-stop-timeout-seconds', timeout),
  };
}

/**
 * KubeVirt: an integer in VIRT_LAUNCHER_LOG_VERBOSITY overrides -v; anything else there is
 * reported (the caller logs the warning) and ignored.
 */
export function resolveVerbosity(
  flag: number | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { verbosity: number | undefined; warning?: string } {
  const raw = env[VERBOSITY_ENV];
  if (raw === undefined) return { verbosity: flag };
  const n = Number.parseInt(raw, 10);
  if (Number.isInteger(n) && String(n) === raw.trim()) return { verbosity: n };
  return {
    verbosity: flag,
    warning: `failed to set log verbosity. The value of logVerbosity label should be an integer, got ${raw}`,
  };
}
