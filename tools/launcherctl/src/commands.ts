// Every launcherctl command: which RPC, which timeout (packages/launcher/docs/cmd-contract.md#rpcs-and-timeouts), which
// name virt-handler uses in its messages (#errors), and how the answer is shown.
import { clientCmdVersions } from '@virt-launcher/launcher';
import type { CmdMethod, RequestOf, ResponseOf } from '@virt-launcher/launcher';
import type { AgentArgs } from './agent-commands.js';
import type { LauncherConnection } from './connection.js';
import { CommandError } from './errors.js';
import { interpretCallError, interpretResponse, isServiceError } from './handle-error.js';
import type { ResponseStatus } from './handle-error.js';
import { describeDomain, describeStats } from './render.js';
import { loadVmiFile, syncOptions, vmiFromDomain, vmiRequest } from './vmi-file.js';

type Json = Record<string, unknown>;

export interface Outcome {
  human: string;
  json: Json;
  /** Remarks for the operator (stderr), e.g. a derived uid. */
  notes?: string[];
}

export interface CommandSpec {
  /** What the file argument is: required (sync), optional (lifecycle verbs), none. */
  file: 'required' | 'optional' | 'none';
  run(conn: LauncherConnection, file: string | undefined, args?: AgentArgs): Promise<Outcome>;
  /** The words after the command are its arguments (exec's CMD ARGS…), not a FILE. */
  rest?: boolean;
}

const SHORT_MS = 5_000; // Ping, GetDomain, GetDomainStats, GetQemuVersion
const LONG_MS = 20_000; // Sync, Pause, Unpause, Shutdown, Kill, Delete

/** One RPC with handleError's reading of the result: resolves only on what the handler calls success. */
export async function invoke<K extends CmdMethod>(
  conn: LauncherConnection,
  name: string,
  method: K,
  request: RequestOf<K>,
  timeoutMs: number,
): Promise<ResponseOf<K>> {
  let res: ResponseOf<K>;
  try {
    res = await conn.call(method, request, timeoutMs);
  } catch (err) {
    if (isServiceError(err)) throw interpretCallError(name, err);
    throw new CommandError(name, `command ${name} failed: ${String(err)}`);
  }
  const body = res as unknown as Json;
  const status = ('response' in body ? body.response : body) as ResponseStatus | undefined;
  const failure = interpretResponse(name, status);
  if (failure) throw failure;
  return res;
}

export async function currentDomain(conn: LauncherConnection): Promise<Json | undefined> {
  const res = await invoke(conn, 'GetDomain', 'getDomain', {}, SHORT_MS);
  if (res.domain === '') return undefined;
  try {
    return JSON.parse(res.domain) as Json;
  } catch {
    throw new CommandError('GetDomain', `GetDomain returned a domain that is not JSON: ${res.domain.slice(0, 80)}`);
  }
}

/** pause, unpause, shutdown, kill, delete: a VMIRequest naming the VMI, from FILE or from the running domain. */
function lifecycle(name: string, method: CmdMethod, verb: string, done: string): CommandSpec {
  return {
    file: 'optional',
    async run(conn, file) {
      let vmi: Json | undefined;
      if (file) vmi = (await loadVmiFile(file)).vmi;
      else {
        const domain = await currentDomain(conn);
        vmi = domain && vmiFromDomain(domain);
        if (!vmi) throw new CommandError(name, `no domain on this launcher to ${verb}: give the VMI FILE`);
      }
      await invoke(conn, name, method, vmiRequest(vmi) as RequestOf<typeof method>, LONG_MS);
      const meta = vmi.metadata as Json;
      const who = `${String(meta.namespace)}/${String(meta.name)}`;
      return { human: `${done} ${who}`, json: { command: name, vmi: who } };
    },
  };
}

export const COMMANDS: Record<string, CommandSpec> = {
  info: {
    file: 'none',
    async run(conn) {
      const human = [
        `socket                ${conn.socketPath}`,
        `server cmd versions   ${conn.serverVersions.join(', ')}`,
        `client cmd versions   ${clientCmdVersions.join(', ')}`,
        `negotiated            v${conn.version}`,
      ].join('\n');
      const json = {
        command: 'Info',
        socket: conn.socketPath,
        serverVersions: conn.serverVersions,
        clientVersions: clientCmdVersions,
        version: conn.version,
      };
      return { human, json };
    },
  },
  ping: {
    file: 'none',
    async run(conn) {
      const started = performance.now();
      await invoke(conn, 'Ping', 'ping', {}, SHORT_MS);
      const ms = Math.round(performance.now() - started);
      return { human: `pong (cmd v${conn.version}, ${ms} ms)`, json: { command: 'Ping', version: conn.version, ms } };
    },
  },
  sync: {
    file: 'required',
    async run(conn, file) {
      const loaded = await loadVmiFile(file as string);
      const options = syncOptions(loaded.vmi);
      await invoke(conn, 'SyncVMI', 'syncVirtualMachine', vmiRequest(loaded.vmi, options), LONG_MS);
      const who = `${loaded.namespace}/${loaded.name}`;
      const notes = loaded.uidDerived
        ? [`note: ${file} has no metadata.uid, sent ${loaded.uid} (derived from ${who})`]
        : [];
      return {
        human: `synced ${who} (uid ${loaded.uid})`,
        json: {
          command: 'SyncVMI',
          vmi: who,
          uid: loaded.uid,
          interfaceDomainAttachment: options.interfaceDomainAttachment,
          memBalloonStatsPeriod: options.MemBalloonStatsPeriod,
        },
        notes,
      };
    },
  },
  domain: {
    file: 'none',
    async run(conn) {
      const domain = await currentDomain(conn);
      if (!domain) return { human: 'no domain', json: { command: 'GetDomain', exists: false } };
      return { human: describeDomain(domain), json: { command: 'GetDomain', exists: true, domain } };
    },
  },
  pause: lifecycle('Pause', 'pauseVirtualMachine', 'pause', 'paused'),
  unpause: lifecycle('Unpause', 'unpauseVirtualMachine', 'unpause', 'unpaused'),
  shutdown: lifecycle('Shutdown', 'shutdownVirtualMachine', 'shut down', 'shutdown signalled for'),
  kill: lifecycle('Kill', 'killVirtualMachine', 'kill', 'killed'),
  delete: lifecycle('Delete', 'deleteVirtualMachine', 'delete', 'deleted'),
  stats: {
    file: 'none',
    async run(conn) {
      const res = await invoke(conn, 'GetDomainStats', 'getDomainStats', {}, SHORT_MS);
      if (res.domainStats === '') return { human: '(no statistics)', json: { command: 'GetDomainStats', stats: null } };
      let stats: unknown;
      try {
        stats = JSON.parse(res.domainStats);
      } catch {
        throw new CommandError('GetDomainStats', `GetDomainStats returned stats that are not JSON`);
      }
      return { human: describeStats(stats), json: { command: 'GetDomainStats', stats } };
    },
  },
  'qemu-version': {
    file: 'none',
    async run(conn) {
      const res = await invoke(conn, 'GetQemuVersion', 'getQemuVersion', {}, SHORT_MS);
      return { human: res.version, json: { command: 'GetQemuVersion', version: res.version } };
    },
  },
};
