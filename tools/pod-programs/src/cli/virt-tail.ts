// The virt-tail program: process wiring only (streams, signals, exit code).
import process from 'node:process';
import { runTail } from '../tail.js';

const stop = new AbortController();
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => stop.abort());
const code = await runTail(
  process.argv.slice(2),
  { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) },
  stop.signal,
);
process.exitCode = code;
process.stdout.write('', () => process.exit(code));
