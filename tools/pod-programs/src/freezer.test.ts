// virt-freezer against a stand-in launcher on a real unix socket, plus its flags; one run goes through the
// real bin as a process to check that the exit code reaches the shell.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runFreezer } from './index.js';
import { startStandIn } from './testing/standin.js';
import type { Script, StandIn } from './testing/standin.js';

let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

const ok = { success: true, message: '' };
const withAgent = { guestInfoResponse: JSON.stringify({ guestAgentVersion: '8.1.0', os: { name: 'Debian' } }) };
const running = { domain: JSON.stringify({ status: { status: 'Running' } }) };

async function freezer(argv: string[], script: Script = {}) {
  standIn = await startStandIn(script);
  let err = '';
  const code = await runFreezer(['--socket', standIn.socketPath, ...argv], {
    stdout: () => {},
    stderr: (t) => (err += t),
  });
  return { code, err, methods: standIn.received.map((r) => r.method), received: standIn.received };
}

describe('virt-freezer', () => {
  it('freezes a running VM with an agent: GetGuestInfo, GetDomain, Freeze with the VMI and the timeout', async () => {
    const r = await freezer(['--freeze', '--name', 'vm1', '--namespace', 'ns1', '--unfreezeTimeoutSeconds', '60'], {
      getGuestInfo: () => ({ response: ok, ...withAgent }),
      getDomain: () => ({ response: ok, ...running }),
      freezeVirtualMachine: () => ok,
    });
    expect(r.code).toBe(0);
    expect(r.methods).toEqual(['getGuestInfo', 'getDomain', 'freezeVirtualMachine']);
    const req = r.received[2]!.request as { vmi: { vmiJson: Buffer }; unfreezeTimeoutSeconds: number };
    expect(req.unfreezeTimeoutSeconds).toBe(60);
    expect(JSON.parse(Buffer.from(req.vmi.vmiJson).toString())).toEqual({
      metadata: { name: 'vm1', namespace: 'ns1' },
    });
  });

  it('unfreezes', async () => {
    const r = await freezer(['--unfreeze', '--name', 'vm1', '--namespace', 'ns1'], {
      getGuestInfo: () => ({ response: ok, ...withAgent }),
      getDomain: () => ({ response: ok, ...running }),
      unfreezeVirtualMachine: () => ok,
    });
    expect(r.code).toBe(0);
    expect(r.methods).toEqual(['getGuestInfo', 'getDomain', 'unfreezeVirtualMachine']);
  });

  it('does nothing and exits 0 without a guest agent, or when the domain is not running', async () => {
    const noAgent = await freezer(['--freeze', '--name', 'a', '--namespace', 'b'], {
      getGuestInfo: () => ({ response: ok, guestInfoResponse: '' }),
    });
    expect(noAgent.code).toBe(0);
    expect(noAgent.methods).toEqual(['getGuestInfo']);
    await standIn?.close();
    const paused = await freezer(['--freeze', '--name', 'a', '--namespace', 'b'], {
      getGuestInfo: () => ({ response: ok, ...withAgent }),
      getDomain: () => ({ response: ok, domain: JSON.stringify({ status: { status: 'Paused' } }) }),
    });
    expect(paused.code).toBe(0);
    expect(paused.methods).toEqual(['getGuestInfo', 'getDomain']);
  });

  it('undoes a freeze that failed for lack of an agent, and exits 1', async () => {
    const r = await freezer(['--freeze', '--name', 'a', '--namespace', 'b'], {
      getGuestInfo: () => ({ response: ok, ...withAgent }),
      getDomain: () => ({ response: ok, ...running }),
      freezeVirtualMachine: () => ({ success: false, message: 'Guest agent not available for now' }),
      unfreezeVirtualMachine: () => ok,
    });
    expect(r.code).toBe(1);
    expect(r.methods).toEqual(['getGuestInfo', 'getDomain', 'freezeVirtualMachine', 'unfreezeVirtualMachine']);
  });

  it("exits 1 reporting our launcher's answer today (unsupported: GetGuestInfo)", async () => {
    const r = await freezer(['--freeze', '--name', 'a', '--namespace', 'b']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/unsupported: GetGuestInfo/);
    expect(r.methods).toEqual(['getGuestInfo']);
  });

  it('exits 1 on missing or contradicting flags, naming them, without dialing', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--name', 'a', '--namespace', 'b'], /either --freeze or --unfreeze/],
      [['--freeze', '--namespace', 'b'], /--name/],
      [['--freeze', '--name', 'a'], /--namespace/],
      [['--freeze', '--name', 'a', '--namespace', 'b', '--bogus'], /--bogus: unknown flag/],
    ];
    for (const [argv, msg] of cases) {
      let err = '';
      const code = await runFreezer(['--socket', '/nonexistent/sock', ...argv], {
        stdout: () => {},
        stderr: (t) => (err += t),
      });
      expect(code, argv.join(' ')).toBe(1);
      expect(err).toMatch(msg);
    }
  });

  it('as a process: exit code 1 reaches the shell when no launcher listens', () => {
    const bin = join(import.meta.dirname, '../bin/virt-freezer.js');
    const r = spawnSync('node', [bin, '--freeze', '--name', 'a', '--namespace', 'b', '--socket', '/nonexistent/sock'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/Failed to connect launcher/);
  });
});
