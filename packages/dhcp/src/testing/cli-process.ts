// Starts dist/cli.js inside a netns and waits for its "listening" log line.
import { execa, type ResultPromise } from 'execa';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface CliProcess {
  lines: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startCli(ns: string, args: string[]): Promise<CliProcess> {
  const child: ResultPromise = execa('ip', ['netns', 'exec', ns, process.execPath, CLI, 'serve', ...args], {
    reject: false,
    buffer: false,
  });
  const lines: Array<Record<string, unknown>> = [];
  let pending = '';
  let ready: () => void = () => {};
  const listening = new Promise<void>((resolve, reject) => {
    ready = resolve;
    void child.then((r) => reject(new Error(`virt-dhcp exited ${r.exitCode}: ${pending}${String(r.stderr ?? '')}`)));
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        lines.push(rec);
        if (String(rec.msg).includes('listening')) ready();
      } catch {
        lines.push({ raw: line });
      }
    }
  });
  await listening;
  return {
    lines,
    async stop() {
      child.kill('SIGTERM');
      await child;
    },
  };
}
