// launcherctl against the real launcher binary (@virt-launcher/launcher, built) on libvirt's built-in test
// driver: the handshake, the calls and the error path all cross a real launcher's cmd server.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLauncherctl } from './run.js';
import { captureIo } from './testing/standin.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const launcherCli = join(repo, 'node_modules', '@virt-launcher', 'launcher', 'dist', 'cli.js');
const exampleVmi = join(repo, 'examples', 'vmi-demo.yaml');

let root = '';
let launcher: ChildProcess | undefined;
let launcherLog = '';
let socket = '';

async function waitForSocket(path: string, boundMs: number): Promise<void> {
  const until = Date.now() + boundMs;
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
  throw new Error(`no ${path} after ${boundMs} ms:\n${launcherLog}`);
}

async function ctl(...argv: string[]) {
  const cap = captureIo();
  const code = await runLauncherctl(['--socket', socket, ...argv], cap.io, {});
  return { code, out: cap.out, err: cap.err };
}

describe.skipIf(!existsSync(launcherCli))('against the real launcher (test:///default)', () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'vlt-launcherctl-'));
    launcher = spawn(
      process.execPath,
      [launcherCli, '--run-root', root, '--libvirt-uri', 'test:///default', '--name', 'demo', '--namespace', 'default'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    launcher.stderr?.on('data', (d: Buffer) => (launcherLog += d.toString()));
    // The launcher renames launcher-init-sock to launcher-sock once its self-ping passes ("Marked as ready").
    socket = join(root, 'var/run/kubevirt/sockets/launcher-sock');
    await waitForSocket(socket, 30_000);
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

  it('info and ping succeed after the handshake', async () => {
    const info = await ctl('info', '--json');
    expect(info.code).toBe(0);
    expect(JSON.parse(info.out)).toMatchObject({ ok: true, version: 1 });
    expect((await ctl('ping')).code).toBe(0);
  });

  it('domain returns JSON the summary can read', async () => {
    const r = await ctl('domain', '--json');
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out);
    if (body.exists) expect(body.domain.kind).toBe('Domain');
  });

  it('a sync the launcher cannot carry out exits 1 with the launcher message in handler wording', async () => {
    // No container disk was put in place (that is the pod runner's job), so the launcher refuses the VMI.
    const r = await ctl('sync', exampleVmi);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/server error\. command SyncVMI failed: ".+"/);
  });
});
