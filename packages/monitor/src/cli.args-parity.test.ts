// The native monitor and src/args.ts must hand COMMAND the same arguments: each case runs the native executable
// (through the bin) with a COMMAND that writes the arguments it got, and compares them with parseArgs.
import { afterAll, beforeAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseArgs } from './args.js';
import { makeSandbox, runCli, startNoIstio, type Sandbox } from './cli.testkit.js';

let istio: Awaited<ReturnType<typeof startNoIstio>>;
let box: Sandbox;
beforeAll(async () => {
  istio = await startNoIstio();
});
afterAll(async () => {
  await istio.close();
});
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => {
  box.remove();
});

const CASES: { name: string; flags: string[]; args: string[] }[] = [
  { name: 'no flags', flags: [], args: ['a', 'b c'] },
  { name: 'a launcher flag before --', flags: ['--grace-period-seconds', '45'], args: ['x'] },
  { name: 'own flags consumed', flags: ['--keep-after-failure=false', '-v', '3', '--uid=107'], args: ['y'] },
  {
    name: 'own and foreign mixed',
    flags: ['--foo=1', '--v=4', '--bar', 'baz', '--qemu-stop-timeout-seconds=2'],
    args: [],
  },
];

describe('native monitor and parseArgs agree on what COMMAND gets', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const out = box.path('argv');
      // sh -c SCRIPT NAME ARGS...: the script writes each argument it received on its own line.
      const command = ['sh', '-c', `for a in "$@"; do printf '%s\\n' "$a"; done > ${out}`, 'sh', ...c.args];
      const result = await runCli({ pid1: false, monitorArgs: c.flags, command, env: istio.env }).done;
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const expected = parseArgs([...c.flags, '--', ...command]).args.slice(3);
      const got = box.read('argv').split('\n').slice(0, -1);
      expect(got).toEqual(expected);
    });
  }

  it('a bad numeric flag: exit 1 and the same message as parseArgs throws', async () => {
    const flags = ['--qemu-stop-timeout-seconds', 'soon'];
    const result = await runCli({ pid1: false, monitorArgs: flags, command: ['true'], env: istio.env }).done;
    expect(result.code).toBe(1);
    expect(() => parseArgs([...flags, '--', 'true'])).toThrow(
      'invalid numeric value "soon" for --qemu-stop-timeout-seconds',
    );
    const line = result.logs.find((l) => l.level === 'error') as unknown as { reason?: string };
    expect(line?.reason).toBe('invalid numeric value "soon" for --qemu-stop-timeout-seconds');
  });
});
