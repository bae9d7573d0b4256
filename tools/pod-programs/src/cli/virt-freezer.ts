// The virt-freezer program: process wiring only (streams, exit code).
import process from 'node:process';
import { runFreezer } from '../freezer.js';

const code = await runFreezer(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
});
process.stdout.write('', () => process.exit(code));
