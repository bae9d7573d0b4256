// virt-probe: the exec and guest-agent-ping readiness/liveness probes virt-controller wraps around a VMI's
// probe command. Flags, defaults and exit codes are KubeVirt's: 1 when the launcher cannot be reached or
// the ping fails; for exec, the guest command's exit code, or 255 (KubeVirt's -1) when the launcher
// returned no exit code because the RPC failed; 2 for bad flags.
import { writeHeapSnapshot } from 'node:v8';
import { FlagError, parseFlags, usage } from './flags.js';
import type { FlagSpecs } from './flags.js';
import { callRpc, connect, SHORT_TIMEOUT_MS } from './launcher-rpc.js';
import { createLogger } from './log.js';
import type { ProgramIO } from './program-io.js';

export const DEFAULT_LAUNCHER_SOCKET = '/var/run/kubevirt/sockets/launcher-sock';

const specs = {
  socket: { kind: 'string', default: DEFAULT_LAUNCHER_SOCKET, help: 'Socket for connecting to the cmd server' },
  domainName: {
    kind: 'string',
    default: '',
    help: 'Domain name of the VM to reach the agent of, usually namespace_name',
  },
  command: { kind: 'string', default: '', help: 'Command to execute on the guest' },
  memProfile: { kind: 'string', default: '', help: 'Path to write a heap snapshot to; skipped when empty' },
  timeoutSeconds: { kind: 'int32', default: 1, help: 'Seconds the probe waits for the guest command to return' },
  guestAgentPing: { kind: 'bool', default: false, help: 'Probe by a guest-agent ping instead of a command' },
  v: { kind: 'int32', default: 2, help: 'log verbosity' },
} satisfies FlagSpecs;

export async function runProbe(argv: string[], io: ProgramIO): Promise<number> {
  const logger = createLogger('virt-probe', io.stderr);
  let parsed;
  try {
    parsed = parseFlags(specs, argv);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    io.stderr(`${err.message}\n${usage('virt-probe', '[flags] [-- args]', specs)}`);
    return 2;
  }
  if (parsed.help) {
    io.stdout(usage('virt-probe', '[flags] [-- args]', specs));
    return 0;
  }
  const f = parsed.values;
  let client;
  try {
    client = await connect(f.socket);
  } catch (err) {
    logger.log('error', 'Failed to connect cmd client', { reason: (err as Error).message });
    return 1;
  }
  try {
    const rpcTimeout = f.timeoutSeconds * 1000 + SHORT_TIMEOUT_MS;
    if (f.guestAgentPing) {
      const r = await callRpc(
        client,
        'GuestPing',
        'guestPing',
        { domainName: f.domainName, timeoutSeconds: f.timeoutSeconds },
        rpcTimeout,
      );
      if (r.error) {
        logger.log('critical', 'Failed to ping the guest', { reason: r.error.message });
        return 1;
      }
      return 0;
    }
    const r = await callRpc(
      client,
      'Exec',
      'exec',
      { domainName: f.domainName, Command: f.command, Args: parsed.args, timeoutSeconds: f.timeoutSeconds },
      rpcTimeout,
    );
    if (r.answer && r.answer.stdOut.length > 0) io.stdout(r.answer.stdOut + '\n');
    if (r.error) logger.log('critical', 'Failed executing the command', { reason: r.error.message });
    if (f.memProfile !== '') {
      logger.log('info', 'creating memory profile');
      writeHeapSnapshot(f.memProfile);
    }
    // A failed RPC carries no guest exit code: KubeVirt then exits with -1, which the shell sees as 255.
    const exitCode = r.error ? (r.answer?.exitCode ? r.answer.exitCode : -1) : (r.answer?.exitCode ?? -1);
    return exitCode & 0xff;
  } finally {
    client.close();
  }
}
