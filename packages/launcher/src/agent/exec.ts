// Exec through the agent as KubeVirt's agent.GuestExec: guest-exec with captured output, then guest-exec-status
// every timeout/10 until the command exits or the timeout passes. A non-zero exit is not an error of the call:
// the caller gets the exit code and the output.
import type { AgentDomain } from './types.js';

export interface ExecResult {
  exitCode: number;
  stdout: string;
}

/** The command did not exit within its timeout (KubeVirt's message). */
export class ExecTimeoutError extends Error {
  constructor(
    readonly pid: number,
    readonly command: string,
  ) {
    super(`Timed out waiting for guest pid [${pid}] for command [${command}] to exit`);
    this.name = 'ExecTimeoutError';
  }
}

export class ExecRequestError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    why: string,
  ) {
    super(`exec: ${field} ${JSON.stringify(value)} ${why}`);
    this.name = 'ExecRequestError';
  }
}

function agentReturn<T>(reply: string): T {
  return (JSON.parse(reply) as { return: T }).return;
}

export async function guestExec(
  dom: Pick<AgentDomain, 'qemuAgentCommand'>,
  command: string,
  args: readonly string[],
  timeoutSeconds: number,
): Promise<ExecResult> {
  if (command === '') throw new ExecRequestError('command', command, 'is empty');
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new ExecRequestError('timeoutSeconds', timeoutSeconds, 'must be a whole number of seconds > 0');
  }
  const started = await dom.qemuAgentCommand({
    execute: 'guest-exec',
    arguments: { path: command, arg: [...args], 'capture-output': true },
  });
  const { pid } = agentReturn<{ pid: number }>(started);
  if (!(pid > 0)) throw new Error(`Invalid pid [${pid}] returned from qemu agent: ${started}`);
  const until = Date.now() + timeoutSeconds * 1000;
  const stepMs = timeoutSeconds * 100;
  for (;;) {
    const status = agentReturn<{ exited: boolean; exitcode?: number; 'out-data'?: string }>(
      await dom.qemuAgentCommand({ execute: 'guest-exec-status', arguments: { pid } }),
    );
    if (status.exited) {
      return { exitCode: status.exitcode ?? 0, stdout: Buffer.from(status['out-data'] ?? '', 'base64').toString() };
    }
    await new Promise((r) => setTimeout(r, stepMs));
    if (Date.now() > until) throw new ExecTimeoutError(pid, command);
  }
}
