// The virt-probe program: process wiring only (streams, exit code).
import process from 'node:process';
import { runProbe } from '../probe.js';

const code = await runProbe(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
});
process.stdout.write('', () => process.exit(code));
