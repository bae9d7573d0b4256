// launcherctl's whole run, without process globals: argv in, text out, exit code back (0 ok, 1 launcher
// failure, 2 bad usage). cli.ts binds it to the process; tests call it directly.
import { parseArgs } from 'node:util';
import { AGENT_COMMANDS } from './agent-commands.js';
import type { AgentArgs } from './agent-commands.js';
import { COMMANDS as BASE_COMMANDS } from './commands.js';
import { checkSocket, LauncherConnection } from './connection.js';
import { CommandError, HandshakeError, SocketError, UsageError } from './errors.js';

const COMMANDS = { ...BASE_COMMANDS, ...AGENT_COMMANDS };

export const USAGE = `usage: launcherctl --socket PATH COMMAND [FILE] [--json]

Talks to a virt-launcher's cmd socket the way virt-handler does (Info handshake, then kubevirt.cmd.v1).

commands:
  info                 cmd versions the launcher offers and the one negotiated
  ping                 Ping
  sync FILE            SyncVirtualMachine with the VMI in FILE (YAML or JSON)
  domain               GetDomain: the domain and its state
  pause [FILE]         PauseVirtualMachine   (VMI from FILE, else from the running domain)
  unpause [FILE]       UnpauseVirtualMachine
  shutdown [FILE]      ShutdownVirtualMachine (ACPI power button)
  kill [FILE]          KillVirtualMachine
  delete [FILE]        DeleteVirtualMachine
  stats                GetDomainStats
  qemu-version         GetQemuVersion
  guest-info           GetGuestInfo: hostname, OS, timezone, agent version, users, filesystems
  users                GetUsers
  filesystems          GetFilesystems
  guest-ping           GuestPing (--timeout S, default 5)
  exec -- CMD ARGS...  Exec through the guest agent: stdout and exit code (--timeout S, default 10)
  freeze [FILE]        FreezeVirtualMachine (--unfreeze-timeout S: thawed by itself after S seconds)
  unfreeze [FILE]      UnfreezeVirtualMachine
  soft-reboot [FILE]   SoftRebootVirtualMachine (through the agent when GetDomain shows it connected)

options:
  --socket PATH        the launcher's socket (default: $LAUNCHERCTL_SOCKET)
  --json               one JSON object on stdout instead of text
  --timeout S          exec, guest-ping: seconds the guest has to answer
  --unfreeze-timeout S freeze: seconds after which the launcher thaws the guest by itself (0: never)
exit: 0 success, 1 launcher failure (message on stderr), 2 bad usage`;

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

interface Invocation {
  socket: string;
  command: string;
  file: string | undefined;
  json: boolean;
  args: AgentArgs;
}

function seconds(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text))
    throw new UsageError(`--${flag} must be a whole number of seconds, got ${JSON.stringify(text)}`);
  return Number(text);
}

export function parseInvocation(argv: string[], env: NodeJS.ProcessEnv = process.env): Invocation | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        socket: { type: 'string', short: 's' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        timeout: { type: 'string' },
        'unfreeze-timeout': { type: 'string' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.values.help) return 'help';
  const [command, ...words] = parsed.positionals;
  if (!command) throw new UsageError('no command given');
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const args: AgentArgs = {
    rest: spec.rest ? words : [],
    timeoutSeconds: seconds('timeout', parsed.values.timeout),
    unfreezeTimeoutSeconds: seconds('unfreeze-timeout', parsed.values['unfreeze-timeout']),
  };
  const [file, ...extra] = spec.rest ? [] : words;
  if (extra.length > 0 || (spec.file === 'none' && file !== undefined)) {
    throw new UsageError(`too many arguments for ${command}`);
  }
  if (spec.file === 'required' && !file) throw new UsageError(`${command} needs a FILE`);
  const socket = parsed.values.socket ?? env.LAUNCHERCTL_SOCKET;
  if (!socket) throw new UsageError('--socket PATH is required');
  return { socket, command, file, json: parsed.values.json ?? false, args };
}

function errorJson(err: Error): Record<string, unknown> {
  const base: Record<string, unknown> = { kind: err.name, message: err.message };
  if (err instanceof CommandError) Object.assign(base, { command: err.command, grpcCode: err.grpcCode });
  if (err instanceof SocketError) Object.assign(base, { socket: err.socketPath, reason: err.reason });
  if (err instanceof HandshakeError && err.serverVersions) base.serverVersions = err.serverVersions;
  return base;
}

export async function runLauncherctl(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let inv: Invocation | 'help';
  try {
    inv = parseInvocation(argv, env);
  } catch (err) {
    io.stderr(`launcherctl: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (inv === 'help') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const spec = COMMANDS[inv.command];
  let conn: LauncherConnection | undefined;
  try {
    const facts = await checkSocket(inv.socket);
    if (facts.markedUnresponsive) {
      io.stderr('launcherctl: warning: virt-handler marked this launcher unresponsive (launcher-unresponsive)\n');
    }
    conn = await LauncherConnection.open(inv.socket);
    const outcome = await spec!.run(conn, inv.file, inv.args);
    for (const note of outcome.notes ?? []) io.stderr(`launcherctl: ${note}\n`);
    io.stdout(inv.json ? `${JSON.stringify({ ok: true, ...outcome.json })}\n` : `${outcome.human}\n`);
    return 0;
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    if (error instanceof UsageError) {
      io.stderr(`launcherctl: ${error.message}\n`);
      return 2;
    }
    io.stderr(`launcherctl: ${error.message}\n`);
    if (inv.json) io.stdout(`${JSON.stringify({ ok: false, error: errorJson(error) })}\n`);
    return 1;
  } finally {
    conn?.close();
  }
}
