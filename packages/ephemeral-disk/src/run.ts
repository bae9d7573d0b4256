// Runs external tools with an argv array (never a shell) and turns failures into ToolError.
import { execFile } from 'node:child_process';
import { ToolError } from './errors.js';

export interface RunOptions {
  /** Kill the tool after this many milliseconds (ISO builds: 10 s, like KubeVirt). */
  timeoutMs?: number;
  /** The tool's working directory (entered by the child before exec, with the launcher's own credentials). */
  cwd?: string;
}

export interface RunOutput {
  stdout: string;
  stderr: string;
}

export function run(tool: string, args: readonly string[], options: RunOptions = {}): Promise<RunOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      tool,
      args,
      {
        encoding: 'utf8',
        maxBuffer: 16 * 1024 * 1024,
        timeout: options.timeoutMs ?? 0,
        killSignal: 'SIGKILL',
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ stdout, stderr });
          return;
        }
        const failure = error as NodeJS.ErrnoException & { code?: unknown; signal?: NodeJS.Signals | null };
        const exitCode = typeof failure.code === 'number' ? failure.code : null;
        const output = `${stderr}${stdout}` || failure.message;
        reject(new ToolError(tool, args, output, exitCode, failure.signal ?? null));
      },
    );
  });
}
