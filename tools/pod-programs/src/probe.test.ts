// virt-probe against a stand-in launcher on a real unix socket (the real gRPC wire), and its flags.
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { runProbe } from './index.js';
import { startStandIn } from './testing/standin.js';
import type { Script, StandIn } from './testing/standin.js';

let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function probe(argv: string[], script: Script = {}) {
  standIn = await startStandIn(script);
  let out = '';
  let err = '';
  const code = await runProbe(['--socket', standIn.socketPath, ...argv], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
  });
  return { code, out, err, received: standIn.received };
}

const ok = { success: true, message: '' };

describe('virt-probe exec', () => {
  it("sends the command, its args and the timeout, prints the guest's stdout and exits with its code", async () => {
    const r = await probe(
      ['--domainName', 'ns_vm', '--timeoutSeconds', '3', '--command', 'cat', '--', '/etc/ready', '-n'],
      {
        exec: () => ({ response: ok, exitCode: 3, stdOut: 'not yet' }),
      },
    );
    expect(r.received).toEqual([
      {
        method: 'exec',
        request: { domainName: 'ns_vm', Command: 'cat', Args: ['/etc/ready', '-n'], timeoutSeconds: 3 },
      },
    ]);
    expect(r.out).toBe('not yet\n');
    expect(r.code).toBe(3);
  });

  it('exits 0 when the guest command succeeds', async () => {
    const r = await probe(['--command', 'true'], { exec: () => ({ response: ok, exitCode: 0, stdOut: '' }) });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
  });

  it("reports our launcher's answer today (unsupported: Exec) and fails the probe with 255", async () => {
    const r = await probe(['--command', 'true']);
    expect(r.code).toBe(255);
    expect(r.err).toMatch(/unsupported: Exec/);
    expect(JSON.parse(r.err.trim().split('\n').pop()!)).toMatchObject({ component: 'virt-probe', level: 'critical' });
  });

  it('fails with 255 when the RPC itself fails (a gRPC status)', async () => {
    const r = await probe(['--command', 'true'], { exec: () => ({ code: status.INTERNAL, details: 'agent gone' }) });
    expect(r.code).toBe(255);
    expect(r.err).toMatch(/agent gone/);
  });
});

describe('virt-probe --guestAgentPing', () => {
  it('exits 0 when the ping succeeds and sends the domain and timeout', async () => {
    const r = await probe(['--guestAgentPing', '--domainName', 'ns_vm', '--timeoutSeconds', '2'], {
      guestPing: () => ({ response: ok }),
    });
    expect(r.code).toBe(0);
    expect(r.received).toEqual([{ method: 'guestPing', request: { domainName: 'ns_vm', timeoutSeconds: 2 } }]);
  });

  it("exits 1 on our launcher's answer today (unsupported: GuestPing)", async () => {
    const r = await probe(['--guestAgentPing']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/unsupported: GuestPing/);
  });
});

describe('virt-probe flags and connection', () => {
  const io = () => {
    const o = { out: '', err: '' };
    return { o, io: { stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t) } };
  };

  it('--help exits 0 with the flags; a bad flag or value exits 2 naming it', async () => {
    const h = io();
    expect(await runProbe(['--help'], h.io)).toBe(0);
    expect(h.o.out).toMatch(/--guestAgentPing/);
    const bad = io();
    expect(await runProbe(['--bogus'], bad.io)).toBe(2);
    expect(bad.o.err).toMatch(/--bogus: unknown flag/);
    const val = io();
    expect(await runProbe(['--timeoutSeconds', 'soon'], val.io)).toBe(2);
    expect(val.o.err).toMatch(/--timeoutSeconds: invalid value "soon"/);
  });

  it('exits 1 when there is no launcher on the socket', async () => {
    const r = io();
    expect(await runProbe(['--socket', '/nonexistent/launcher-sock', '--command', 'true'], r.io)).toBe(1);
    expect(r.o.err).toMatch(/Failed to connect cmd client/);
  });
});
