// Helpers for tests that run the programs as real processes.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

export interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function start(cmd: string, args: string[]): Running {
  const child = spawn(cmd, args, { stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls until cond() holds; the deadline only stops a hung test, it asserts nothing about speed. */
export async function waitFor(cond: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const isSocket = (p: string) => existsSync(p) && statSync(p).isSocket();
