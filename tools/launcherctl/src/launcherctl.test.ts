// launcherctl against a stand-in launcher on a real unix socket (grpc-js server from the same generated code).
import { status } from '@grpc/grpc-js';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runLauncherctl } from './run.js';
import { captureIo, startStandIn } from './testing/standin.js';
import type { StandIn } from './testing/standin.js';

const here = dirname(fileURLToPath(import.meta.url));
const exampleVmi = join(here, '..', '..', '..', 'examples', 'vmi-demo.yaml');
const ok = { success: true, message: '' };

let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function ctl(...argv: string[]) {
  const cap = captureIo();
  const code = await runLauncherctl(argv, cap.io, {});
  return { code, out: cap.out, err: cap.err };
}

describe('handshake and simple calls', () => {
  it('ping: Info first, then Ping; exit 0', async () => {
    standIn = await startStandIn({ ping: () => ok });
    const r = await ctl('--socket', standIn.socketPath, 'ping');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^pong \(cmd v1, \d+ ms\)/);
    expect(standIn.infoCalls).toBe(1);
    expect(standIn.received.map((x) => x.method)).toEqual(['ping']);
  });

  it('info --json reports what the server offers and the negotiated version', async () => {
    standIn = await startStandIn({}, [3, 1]);
    const r = await ctl('--socket', standIn.socketPath, 'info', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ ok: true, serverVersions: [3, 1], clientVersions: [1], version: 1 });
  });

  it('version mismatch: exit 1 with KubeVirt wording, no command sent', async () => {
    standIn = await startStandIn({ ping: () => ok }, [2]);
    const r = await ctl('--socket', standIn.socketPath, 'ping', '--json');
    expect(r.code).toBe(1);
    expect(r.err).toContain('no compatible version found, server: [2], client: [1]');
    expect(JSON.parse(r.out).error).toMatchObject({ kind: 'HandshakeError', serverVersions: [2] });
    expect(standIn.received).toEqual([]);
  });

  it('qemu-version prints the version string', async () => {
    standIn = await startStandIn({ getQemuVersion: () => ({ response: ok, version: '7.2.19' }) });
    const r = await ctl('--socket', standIn.socketPath, 'qemu-version');
    expect(r).toMatchObject({ code: 0, out: '7.2.19\n' });
  });
});

describe('sync', () => {
  it('sends the example VMI as JSON with tap attachment for masquerade and a 10 s balloon period', async () => {
    standIn = await startStandIn({ syncVirtualMachine: () => ok });
    const r = await ctl('--socket', standIn.socketPath, 'sync', exampleVmi);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^synced default\/demo \(uid [0-9a-f-]{36}\)/);
    expect(r.err).toContain('has no metadata.uid');
    const req = standIn.received[0]?.request as {
      vmi: { vmiJson: Buffer };
      options: { interfaceDomainAttachment: Record<string, string>; MemBalloonStatsPeriod: number };
    };
    const vmi = JSON.parse(req.vmi.vmiJson.toString());
    expect(vmi.kind).toBe('VirtualMachineInstance');
    expect(vmi.metadata).toMatchObject({ name: 'demo', namespace: 'default' });
    expect(vmi.spec.domain.firmware.kernelBoot.container.image).toBe('demo-guest');
    expect(req.options.interfaceDomainAttachment).toEqual({ default: 'tap' });
    expect(req.options.MemBalloonStatsPeriod).toBe(10);
  });

  it('the same file gets the same derived uid twice (a re-sync is the same VMI)', async () => {
    standIn = await startStandIn({ syncVirtualMachine: () => ok });
    await ctl('--socket', standIn.socketPath, 'sync', exampleVmi);
    await ctl('--socket', standIn.socketPath, 'sync', exampleVmi);
    const uids = standIn.received.map(
      (x) => JSON.parse((x.request as { vmi: { vmiJson: Buffer } }).vmi.vmiJson.toString()).metadata.uid,
    );
    expect(uids).toHaveLength(2);
    expect(uids[0]).toBe(uids[1]);
  });

  it('success:false with a message: exit 1, handler wording on stderr', async () => {
    const msg = "LibvirtError(Code=38, Domain=10, Message='Cannot access storage file')";
    standIn = await startStandIn({ syncVirtualMachine: () => ({ success: false, message: msg }) });
    const r = await ctl('--socket', standIn.socketPath, 'sync', exampleVmi);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`server error. command SyncVMI failed: ${JSON.stringify(msg)}`);
  });

  it('success:false with an EMPTY message counts as success, as virt-handler reads it', async () => {
    standIn = await startStandIn({ syncVirtualMachine: () => ({ success: false, message: '' }) });
    const r = await ctl('--socket', standIn.socketPath, 'sync', exampleVmi);
    expect(r.code).toBe(0);
  });

  it('a file that is not a VMI is bad usage (exit 2) and nothing is sent', async () => {
    standIn = await startStandIn({ syncVirtualMachine: () => ok });
    const bad = join(standIn.dir, 'pod.yaml');
    await writeFile(bad, 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {}\n');
    const r = await ctl('--socket', standIn.socketPath, 'sync', bad);
    expect(r.code).toBe(2);
    expect(r.err).toContain('kind is Pod');
    expect(standIn.received).toEqual([]);
  });
});

describe('domain and lifecycle', () => {
  const domain = {
    kind: 'Domain',
    apiVersion: '1.2.2',
    ObjectMeta: { name: 'demo', namespace: 'default', uid: '1111-2222' },
    Spec: { Name: 'default_demo', UUID: 'abcd', Memory: { Value: 134217728, Unit: 'b' }, Devices: { Disks: [{}, {}] } },
    Status: { Status: 'Running', Reason: 'Unknown' },
  };

  it('domain: human summary of the GetDomain JSON', async () => {
    standIn = await startStandIn({ getDomain: () => ({ response: ok, domain: JSON.stringify(domain) }) });
    const r = await ctl('--socket', standIn.socketPath, 'domain');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/domain\s+default_demo/);
    expect(r.out).toMatch(/state\s+Running \(Unknown\)/);
    expect(r.out).toMatch(/disks\s+2/);
  });

  it('domain: an empty answer means no domain', async () => {
    standIn = await startStandIn({ getDomain: () => ({ response: ok, domain: '' }) });
    const r = await ctl('--socket', standIn.socketPath, 'domain', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ ok: true, command: 'GetDomain', exists: false });
  });

  it('pause without FILE names the VMI from the running domain', async () => {
    standIn = await startStandIn({
      getDomain: () => ({ response: ok, domain: JSON.stringify(domain) }),
      pauseVirtualMachine: () => ok,
    });
    const r = await ctl('--socket', standIn.socketPath, 'pause');
    expect(r).toMatchObject({ code: 0, out: 'paused default/demo\n' });
    const sent = standIn.received.find((x) => x.method === 'pauseVirtualMachine')?.request as {
      vmi: { vmiJson: Buffer };
    };
    expect(JSON.parse(sent.vmi.vmiJson.toString()).metadata).toEqual({
      name: 'demo',
      namespace: 'default',
      uid: '1111-2222',
    });
  });

  it('kill with no domain and no FILE: exit 1 with advice', async () => {
    standIn = await startStandIn({ getDomain: () => ({ response: ok, domain: '' }), killVirtualMachine: () => ok });
    const r = await ctl('--socket', standIn.socketPath, 'kill');
    expect(r.code).toBe(1);
    expect(r.err).toContain('give the VMI FILE');
    expect(standIn.received.map((x) => x.method)).toEqual(['getDomain']);
  });

  it('stats: unset metrics (XSet=false) are left out', async () => {
    const stats = { Name: 'default_demo', Cpu: { TimeSet: true, Time: 42, UserSet: false, User: 0 }, Vcpu: [] };
    standIn = await startStandIn({ getDomainStats: () => ({ response: ok, domainStats: JSON.stringify(stats) }) });
    const r = await ctl('--socket', standIn.socketPath, 'stats');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Cpu\.Time\s+42/);
    expect(r.out).not.toContain('Cpu.User');
  });
});

describe('gRPC errors (handleError rules 1 and 2)', () => {
  it('Unimplemented is reported as is', async () => {
    standIn = await startStandIn({});
    const r = await ctl('--socket', standIn.socketPath, 'stats');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/launcherctl: rpc error: code = Unimplemented desc = /);
  });

  it('another status gets "command <Name> failed with <Code>"', async () => {
    standIn = await startStandIn({ getDomainStats: () => ({ code: status.INTERNAL, details: 'boom' }) });
    const r = await ctl('--socket', standIn.socketPath, 'stats', '--json');
    expect(r.code).toBe(1);
    expect(r.err).toContain('command GetDomainStats failed with Internal: rpc error: code = Internal desc = boom');
    expect(JSON.parse(r.out).error).toMatchObject({
      kind: 'CommandError',
      command: 'GetDomainStats',
      grpcCode: 'Internal',
    });
  });

  it('a launcher that never answers Ping hits the 5 s deadline', async () => {
    standIn = await startStandIn({ ping: () => 'hang' });
    const r = await ctl('--socket', standIn.socketPath, 'ping');
    expect(r.code).toBe(1);
    expect(r.err).toContain('command Ping failed with DeadlineExceeded');
  });
});

describe('socket problems and usage', () => {
  it('missing socket: exit 1 with a clear message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vlt-launcherctl-'));
    try {
      const r = await ctl('--socket', join(dir, 'launcher-sock'), 'ping', '--json');
      expect(r.code).toBe(1);
      expect(r.err).toContain(`no launcher socket at ${join(dir, 'launcher-sock')}: no such file`);
      expect(JSON.parse(r.out).error).toMatchObject({ kind: 'SocketError', reason: 'missing' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a regular file is not a socket', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vlt-launcherctl-'));
    try {
      await writeFile(join(dir, 'launcher-sock'), '');
      const r = await ctl('--socket', join(dir, 'launcher-sock'), 'ping');
      expect(r.code).toBe(1);
      expect(r.err).toContain('is not a unix socket');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('warns when virt-handler marked the launcher unresponsive', async () => {
    standIn = await startStandIn({ ping: () => ok });
    await writeFile(join(standIn.dir, 'launcher-unresponsive'), '');
    const r = await ctl('--socket', standIn.socketPath, 'ping');
    expect(r.code).toBe(0);
    expect(r.err).toContain('marked this launcher unresponsive');
  });

  it.each([
    [['ping'], '--socket PATH is required'],
    [['--socket', '/x', 'frobnicate'], 'unknown command'],
    [['--socket', '/x', 'sync'], 'sync needs a FILE'],
    [['--socket', '/x', 'ping', 'extra'], 'too many arguments'],
    [['--socket', '/x', '--bogus', 'ping'], "Unknown option '--bogus'"],
  ])('bad usage %j: exit 2', async (argv, text) => {
    const r = await ctl(...argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(text);
  });
});

describe('the built binary', () => {
  const bin = join(here, '..', 'dist', 'cli.js');
  const runBin = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [bin, ...args], (_err, stdout, stderr) =>
        resolve({ code: child.exitCode, stdout, stderr }),
      );
    });

  it.skipIf(!existsSync(bin))('exit codes 0, 1, 2 at process level', async () => {
    standIn = await startStandIn({ ping: () => ok });
    expect((await runBin(['--socket', standIn.socketPath, 'ping'])).code).toBe(0);
    expect((await runBin(['--socket', join(standIn.dir, 'nope'), 'ping'])).code).toBe(1);
    const usage = await runBin(['--frob']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: launcherctl');
  });
});
