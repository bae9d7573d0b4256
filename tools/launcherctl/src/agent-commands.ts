// launcherctl's guest-agent commands (issue 19): the agent RPCs with virt-handler's deadlines
// (packages/launcher/docs/cmd-contract.md#rpcs-and-timeouts) and short human views of their JSON.
import type { LauncherConnection } from './connection.js';
import type { CommandSpec, Outcome } from './commands.js';
import { currentDomain, invoke } from './commands.js';
import { CommandError, UsageError } from './errors.js';
import { loadVmiFile, vmiFromDomain, vmiRequest } from './vmi-file.js';

type Json = Record<string, unknown>;

const SHORT_MS = 5_000;
const LONG_MS = 20_000;
const FREEZE_MS = 60_000;
/** Exec and GuestPing without --timeout: KubeVirt's probes default to one second; a command gets longer. */
export const DEFAULT_EXEC_TIMEOUT_S = 10;
export const DEFAULT_PING_TIMEOUT_S = 5;

export interface AgentArgs {
  /** Words after the command (exec's CMD ARGS…). */
  rest: string[];
  timeoutSeconds?: number;
  unfreezeTimeoutSeconds?: number;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseJson(command: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CommandError(command, `${command} returned text that is not JSON: ${text.slice(0, 80)}`);
  }
}

/** The libvirt domain name (`<ns>_<name>`) the agent calls name, from GetDomain. */
async function domainName(conn: LauncherConnection, command: string): Promise<string> {
  const domain = await currentDomain(conn);
  const spec = domain && isObject(domain.Spec) ? domain.Spec : undefined;
  if (!spec || typeof spec.Name !== 'string') throw new CommandError(command, 'no domain on this launcher');
  return spec.Name;
}

/** The agent channel's state as GetDomain reports it ('connected', 'disconnected' or undefined). */
export function agentChannelState(domain: Json): string | undefined {
  const spec = isObject(domain.Spec) ? domain.Spec : {};
  const devices = isObject(spec.Devices) ? spec.Devices : {};
  const channels = Array.isArray(devices.Channels) ? (devices.Channels as Json[]) : [];
  const agent = channels.find((c) => isObject(c.Target) && c.Target.Name === 'org.qemu.guest_agent.0');
  return agent && isObject(agent.Target) && typeof agent.Target.State === 'string' ? agent.Target.State : undefined;
}

/** The VMI of a lifecycle call: from FILE, else made from the running domain. */
async function vmiFor(conn: LauncherConnection, command: string, file: string | undefined): Promise<Json> {
  if (file) return (await loadVmiFile(file)).vmi;
  const domain = await currentDomain(conn);
  const vmi = domain && vmiFromDomain(domain);
  if (!vmi) throw new CommandError(command, `no domain on this launcher: give the VMI FILE`);
  return vmi;
}

const who = (vmi: Json): string => {
  const meta = vmi.metadata as Json;
  return `${String(meta.namespace)}/${String(meta.name)}`;
};

function rows(pairs: Array<[string, unknown]>): string {
  const kept = pairs.filter(([, v]) => v !== undefined && v !== '');
  const width = Math.max(...kept.map(([k]) => k.length));
  return kept.map(([k, v]) => `${k.padEnd(width)}  ${String(v)}`).join('\n');
}

export function describeGuestInfo(info: Json): string {
  const os = isObject(info.os) ? info.os : {};
  const fs = isObject(info.fsInfo) && Array.isArray(info.fsInfo.disks) ? (info.fsInfo.disks as Json[]) : [];
  const users = Array.isArray(info.userList) ? (info.userList as Json[]) : [];
  return rows([
    ['hostname', info.hostname],
    ['os', os.prettyName ?? os.name],
    ['os id', os.id ? `${String(os.id)} ${String(os.versionId ?? '')}`.trim() : undefined],
    ['kernel', os.kernelRelease],
    ['machine', os.machine],
    ['timezone', info.timezone],
    ['agent version', info.guestAgentVersion],
    ['fs freeze', info.fsFreezeStatus],
    ['users', users.map((u) => u.userName).join(', ') || '(none)'],
    ['filesystems', fs.map((f) => `${String(f.mountPoint)} (${String(f.fileSystemType)})`).join(', ') || '(none)'],
  ]);
}

function need(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new UsageError(`${what} must be a whole number of seconds >= 0`);
  }
  return value;
}

async function reads(conn: LauncherConnection, which: 'users' | 'filesystems'): Promise<Outcome> {
  if (which === 'users') {
    const res = await invoke(conn, 'GetUsers', 'getUsers', {}, SHORT_MS);
    const users = parseJson('GetUsers', res.guestUserListResponse) as Json[];
    const human = users.length
      ? users.map((u) => `${String(u.userName)}${u.domain ? `@${String(u.domain)}` : ''}`).join('\n')
      : '(no users logged in)';
    return { human, json: { command: 'GetUsers', users } };
  }
  const res = await invoke(conn, 'GetFilesystems', 'getFilesystems', {}, SHORT_MS);
  const filesystems = parseJson('GetFilesystems', res.guestFilesystemsResponse) as Json[];
  const human = filesystems.length
    ? rows(
        filesystems.map((f) => [
          String(f.mountPoint),
          `${String(f.fileSystemType)} on ${String(f.diskName)}, ${String(f.usedBytes)}/${String(f.totalBytes)} bytes used`,
        ]),
      )
    : '(no filesystems reported)';
  return { human, json: { command: 'GetFilesystems', filesystems } };
}

export const AGENT_COMMANDS: Record<string, CommandSpec> = {
  'guest-info': {
    file: 'none',
    async run(conn) {
      const res = await invoke(conn, 'GetGuestInfo', 'getGuestInfo', {}, SHORT_MS);
      const info = parseJson('GetGuestInfo', res.guestInfoResponse) as Json;
      return { human: describeGuestInfo(info), json: { command: 'GetGuestInfo', guestInfo: info } };
    },
  },
  users: { file: 'none', run: (conn) => reads(conn, 'users') },
  filesystems: { file: 'none', run: (conn) => reads(conn, 'filesystems') },
  'guest-ping': {
    file: 'none',
    async run(conn, _file, args?: AgentArgs) {
      const timeoutSeconds = need(args?.timeoutSeconds ?? DEFAULT_PING_TIMEOUT_S, '--timeout');
      const name = await domainName(conn, 'GuestPing');
      const started = performance.now();
      await invoke(conn, 'GuestPing', 'guestPing', { domainName: name, timeoutSeconds }, (timeoutSeconds + 5) * 1000);
      const ms = Math.round(performance.now() - started);
      return { human: `guest agent answered (${ms} ms)`, json: { command: 'GuestPing', domain: name, ms } };
    },
  },
  exec: {
    file: 'none',
    rest: true,
    async run(conn, _file, args?: AgentArgs) {
      const [command, ...argv] = args?.rest ?? [];
      if (!command) throw new UsageError('exec needs a command: exec [--timeout S] -- CMD ARGS...');
      const timeoutSeconds = need(args?.timeoutSeconds ?? DEFAULT_EXEC_TIMEOUT_S, '--timeout');
      const name = await domainName(conn, 'Exec');
      const res = await invoke(
        conn,
        'Exec',
        'exec',
        { domainName: name, Command: command, Args: argv, timeoutSeconds },
        (timeoutSeconds + 5) * 1000,
      );
      const human = `${res.stdOut}${res.stdOut.endsWith('\n') || res.stdOut === '' ? '' : '\n'}(exit ${res.exitCode})`;
      return { human, json: { command: 'Exec', exitCode: res.exitCode, stdout: res.stdOut } };
    },
  },
  freeze: {
    file: 'optional',
    async run(conn, file, args?: AgentArgs) {
      const unfreezeTimeoutSeconds = need(args?.unfreezeTimeoutSeconds ?? 0, '--unfreeze-timeout');
      const vmi = await vmiFor(conn, 'Freeze', file);
      const req = vmiRequest(vmi);
      await invoke(conn, 'Freeze', 'freezeVirtualMachine', { vmi: req.vmi, unfreezeTimeoutSeconds }, FREEZE_MS);
      const thaw = unfreezeTimeoutSeconds ? ` (thawed automatically after ${unfreezeTimeoutSeconds} s)` : '';
      return { human: `froze ${who(vmi)}${thaw}`, json: { command: 'Freeze', vmi: who(vmi), unfreezeTimeoutSeconds } };
    },
  },
  unfreeze: {
    file: 'optional',
    async run(conn, file) {
      const vmi = await vmiFor(conn, 'Unfreeze', file);
      await invoke(conn, 'Unfreeze', 'unfreezeVirtualMachine', vmiRequest(vmi), LONG_MS);
      return { human: `thawed ${who(vmi)}`, json: { command: 'Unfreeze', vmi: who(vmi) } };
    },
  },
  'soft-reboot': {
    file: 'optional',
    async run(conn, file) {
      const vmi = await vmiFor(conn, 'SoftReboot', file);
      // virt-handler puts AgentConnected in the VMI's status when the channel is connected; the launcher
      // reboots through the agent only then. Do the same from GetDomain.
      const domain = await currentDomain(conn);
      const viaAgent = domain !== undefined && agentChannelState(domain) === 'connected';
      const status = isObject(vmi.status) ? vmi.status : {};
      const conditions = (Array.isArray(status.conditions) ? (status.conditions as Json[]) : []).filter(
        (c) => c.type !== 'AgentConnected',
      );
      if (viaAgent) conditions.push({ type: 'AgentConnected', status: 'True' });
      const sent = { ...vmi, status: { ...status, conditions } };
      await invoke(conn, 'SoftReboot', 'softRebootVirtualMachine', vmiRequest(sent), LONG_MS);
      return {
        human: `soft reboot of ${who(vmi)} signalled (${viaAgent ? 'guest agent' : 'ACPI'})`,
        json: { command: 'SoftReboot', vmi: who(vmi), via: viaAgent ? 'agent' : 'acpi' },
      };
    },
  },
};
