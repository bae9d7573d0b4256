// virt-probe and virt-freezer against the real launcher (built @virt-launcher/launcher) on libvirt's built-in
// test driver: the handshake and the calls cross a real launcher's cmd server, and the programs report what it
// answers today for the guest-agent RPCs.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFreezer, runProbe } from './index.js';

const launcherCli = join(import.meta.dirname, '../../../node_modules/@virt-launcher/launcher/dist/cli.js');
let root = '';
let socket = '';
let launcher: ChildProcess | undefined;
let launcherLog = '';

async function waitForSocket(path: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (launcher?.exitCode !== null) throw new Error(`launcher exited early:\n${launcherLog}`);
    if (
      await stat(path).then(
        (s) => s.isSocket(),
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no ${path}:\n${launcherLog}`);
}

function capture() {
  const c = { out: '', err: '' };
  return { c, io: { stdout: (t: string) => (c.out += t), stderr: (t: string) => (c.err += t) } };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vlt-pod-programs-'));
  launcher = spawn(
    process.execPath,
    [launcherCli, '--run-root', root, '--libvirt-uri', 'test:///default', '--name', 'vm1', '--namespace', 'ns1'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  launcher.stderr?.on('data', (d: Buffer) => (launcherLog += d.toString()));
  // The launcher renames its init socket to launcher-sock once it is ready.
  socket = join(root, 'var/run/kubevirt/sockets/launcher-sock');
  await waitForSocket(socket);
});

afterAll(async () => {
  if (launcher && launcher.exitCode === null) {
    const exited = new Promise((r) => launcher?.once('exit', r));
    launcher.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (launcher.exitCode === null) launcher.kill('SIGKILL');
  }
  if (root) await rm(root, { recursive: true, force: true });
});

describe('against the real launcher (test:///default)', () => {
  // test:///default has no domain ns1_vm1: the launcher's Exec ends with a gRPC error naming
  // libvirt's NO_DOMAIN (Code=42), as KubeVirt's does.
  it('virt-probe exec reports the launcher answer and fails the probe with 255', async () => {
    const { c, io } = capture();
    const code = await runProbe(['--socket', socket, '--domainName', 'ns1_vm1', '--command', 'true'], io);
    expect(c.err).toMatch(/Code=42/);
    expect(code).toBe(255);
  });

  it('virt-probe --guestAgentPing passes: as KubeVirt, a domain not there (yet) is no failed ping', async () => {
    // KubeVirt's GuestPing forgives NO_DOMAIN (a migration target before its domain exists).
    const { c, io } = capture();
    const code = await runProbe(['--socket', socket, '--guestAgentPing', '--domainName', 'ns1_vm1'], io);
    expect(c.err).toBe('');
    expect(code).toBe(0);
  });

  it('virt-freezer --freeze finds no guest agent in the launcher answer and, as KubeVirt, exits 0 doing nothing', async () => {
    const { c, io } = capture();
    const code = await runFreezer(['--socket', socket, '--freeze', '--name', 'vm1', '--namespace', 'ns1'], io);
    expect(c.err).toMatch(/No guest agent, exiting/);
    expect(code).toBe(0);
  });
});
