// virt-launcher's command line: KubeVirt's pflag flags (docs/behaviour.md#flags) plus --run-root and --libvirt-uri.
// Accepts `--flag value` and `--flag=value`, and both bool spellings (`--x`, `--x=false`), as pflag does.
import { parseArgs } from 'node:util';
import { InvalidRequestError } from './errors.js';
import { log } from './log.js';
import type { AgentIntervals } from './agent/types.js';

export interface LauncherFlags {
  name: string;
  namespace: string;
  uid: string;
  qemuTimeoutMs: number;
  gracePeriodSeconds: number;
  kubevirtShareDir: string;
  ephemeralDiskDir: string;
  containerDiskDir: string;
  hotplugDiskDir: string;
  ovmfPath: string;
  hypervisor: string;
  hookSidecars: number;
  diskMemoryLimit: number;
  libvirtLogFilters: string;
  allowEmulation: boolean;
  allowCrossArchEmulation: boolean;
  runAsNonroot: boolean;
  /** KubeVirt's ImageVolume gate: container disks and the kernel-boot image are kubelet's read-only image volumes,
   * linked into the container-disk dir before each sync (domain/sync/image-volumes.ts). */
  imageVolume: boolean;
  simulateCrash: boolean;
  keepAfterFailure: boolean;
  verbosity: number;
  /** Ours: every KubeVirt path is resolved under this directory (default `/`: nothing changes in a pod). */
  runRoot: string;
  /** Ours: use this libvirt instead of starting daemons (e.g. `test:///default`). */
  libvirtUri: string;
  /** --qemu-agent-{sys,file,user,version}-interval and --qemu-fsfreeze-status-interval (agent/poller.ts). */
  agentIntervals?: AgentIntervals;
}

const stringFlags = [
  'name',
  'namespace',
  'uid',
  'qemu-timeout',
  'grace-period-seconds',
  'kubevirt-share-dir',
  'ephemeral-disk-dir',
  'container-disk-dir',
  'hotplug-disk-dir',
  'ovmf-path',
  'hypervisor',
  'hook-sidecars',
  'disk-memory-limit',
  'libvirt-log-filters',
  'qemu-agent-sys-interval',
  'qemu-agent-file-interval',
  'qemu-agent-user-interval',
  'qemu-agent-version-interval',
  'qemu-fsfreeze-status-interval',
  'run-root',
  'libvirt-uri',
  'v',
] as const;

const boolFlags = [
  'allow-emulation',
  'allow-cross-arch-emulation',
  'run-as-nonroot',
  'image-volume',
  'upgrade-ordinal-ifaces',
  'vgpu-dedicated-hook',
  'vm-stats-collector',
  'firmware-auto-selection',
  'simulate-crash',
  'keep-after-failure',
] as const;

/** Go's time.ParseDuration for the units virt-controller uses (h, m, s, ms); a bare number is seconds. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, ns: 0.000001 };
  let total = 0;
  let rest = text;
  while (rest.length > 0) {
    const match = /^(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/.exec(rest);
    if (!match) throw new InvalidRequestError(`invalid duration "${text}"`, 'qemu-timeout');
    total += Number(match[1]) * (units[match[2] ?? 's'] ?? 0);
    rest = rest.slice(match[0].length);
  }
  return total;
}

/**
 * VIRT_LAUNCHER_LOG_VERBOSITY comes from a VMI label anyone may set: as in KubeVirt, a value that is not an integer
 * only warns and the verbosity stays as the flags say; it never stops the launcher.
 */
function envVerbosityOr(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() !== '' && Number.isInteger(n)) return n;
  log.warning(
    `failed to set log verbosity. The value of logVerbosity label should be an integer, got ${text} instead.`,
  );
  return fallback;
}

/** A poll period: a Go duration > 0 (a zero or negative period would make the poller spin). */
function agentInterval(flag: string, text: string | undefined, fallback: string): number {
  let ms: number;
  try {
    ms = parseDuration(text ?? fallback);
  } catch {
    throw new InvalidRequestError(`invalid duration "${text}" for --${flag}`, flag);
  }
  if (!(ms > 0)) throw new InvalidRequestError(`--${flag} must be longer than 0, got "${text}"`, flag);
  return ms;
}

function toInt(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n)) throw new InvalidRequestError(`invalid value "${text}" for --${flag}`, flag);
  return n;
}

/** Normalises `--flag=false` for bools, which node's parseArgs would reject. */
function splitBoolValues(argv: string[]): { args: string[]; falses: Set<string> } {
  const falses = new Set<string>();
  const args: string[] = [];
  for (const arg of argv) {
    const match = /^--([\w-]+)=(true|false)$/.exec(arg);
    if (match && (boolFlags as readonly string[]).includes(match[1] ?? '')) {
      if (match[2] === 'false') falses.add(match[1] ?? '');
      else args.push(`--${match[1]}`);
    } else args.push(arg);
  }
  return { args, falses };
}

/** One line per flag, for `virt-launcher --help`. */
export function usage(): string {
  return [
    'usage: virt-launcher --name NAME --namespace NS --uid UID [flags]',
    '',
    "KubeVirt's virt-launcher: starts the libvirt daemons, serves kubevirt.cmd.v1.Cmd on",
    '<kubevirt-share-dir>/sockets/launcher-sock, defines and starts the domain, reports its events.',
    '',
    'string flags: ' + stringFlags.map((f) => `--${f}`).join(' '),
    'bool flags:   ' + boolFlags.map((f) => `--${f}`).join(' '),
    '',
    'ours: --run-root DIR resolves every KubeVirt path under DIR (default /); --libvirt-uri URI uses an existing',
    'libvirt (e.g. test:///default) instead of starting daemons.',
  ].join('\n');
}

export function wantsHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}

export function parseFlags(argv: string[], env: NodeJS.ProcessEnv = process.env): LauncherFlags {
  const { args, falses } = splitBoolValues(argv);
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const f of stringFlags) options[f] = { type: 'string' };
  for (const f of boolFlags) options[f] = { type: 'boolean' };
  const { values } = parseArgs({ args, options, strict: true, allowPositionals: false });
  const s = (k: (typeof stringFlags)[number]): string | undefined => values[k] as string | undefined;
  const b = (k: (typeof boolFlags)[number]): boolean => values[k] === true && !falses.has(k);
  const envVerbosity = env.VIRT_LAUNCHER_LOG_VERBOSITY;
  return {
    name: s('name') ?? '',
    namespace: s('namespace') ?? '',
    uid: s('uid') ?? '',
    qemuTimeoutMs: parseDuration(s('qemu-timeout') ?? '3m'),
    gracePeriodSeconds: toInt('grace-period-seconds', s('grace-period-seconds'), 30),
    kubevirtShareDir: s('kubevirt-share-dir') ?? '/var/run/kubevirt',
    ephemeralDiskDir: s('ephemeral-disk-dir') ?? '/var/run/kubevirt-ephemeral-disks',
    containerDiskDir: s('container-disk-dir') ?? '/var/run/kubevirt/container-disks',
    hotplugDiskDir: s('hotplug-disk-dir') ?? '/var/run/kubevirt/hotplug-disks/',
    ovmfPath: s('ovmf-path') ?? '/usr/share/edk2/ovmf',
    hypervisor: s('hypervisor') ?? 'kvm',
    hookSidecars: toInt('hook-sidecars', s('hook-sidecars'), 0),
    diskMemoryLimit: toInt('disk-memory-limit', s('disk-memory-limit'), 2_097_152_000),
    libvirtLogFilters: s('libvirt-log-filters') ?? '',
    allowEmulation: b('allow-emulation'),
    allowCrossArchEmulation: b('allow-cross-arch-emulation'),
    runAsNonroot: b('run-as-nonroot'),
    imageVolume: b('image-volume'),
    simulateCrash: b('simulate-crash'),
    keepAfterFailure: b('keep-after-failure'),
    verbosity: envVerbosityOr(envVerbosity, toInt('v', s('v'), 2)),
    runRoot: s('run-root') ?? '/',
    libvirtUri: s('libvirt-uri') ?? '',
    agentIntervals: {
      sysMs: agentInterval('qemu-agent-sys-interval', s('qemu-agent-sys-interval'), '120s'),
      fileMs: agentInterval('qemu-agent-file-interval', s('qemu-agent-file-interval'), '300s'),
      userMs: agentInterval('qemu-agent-user-interval', s('qemu-agent-user-interval'), '10s'),
      versionMs: agentInterval('qemu-agent-version-interval', s('qemu-agent-version-interval'), '300s'),
      fsFreezeStatusMs: agentInterval('qemu-fsfreeze-status-interval', s('qemu-fsfreeze-status-interval'), '5s'),
    },
  };
}
