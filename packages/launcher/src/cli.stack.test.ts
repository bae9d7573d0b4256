// The real binary over the real socket: handshake, Ping, explicit "unsupported", stale socket, clean exit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import { cliPath, isSocket, makeRunRoot, removeRunRoot, startLauncher } from './testing/launcher-process.js';
import type { LauncherProcess } from './testing/launcher-process.js';

describe('virt-launcher --help', () => {
  it('prints the flags and exits 0 without starting anything', () => {
    const r = spawnSync(process.execPath, [cliPath, '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/usage: virt-launcher/);
    expect(r.stdout).toMatch(/--grace-period-seconds/);
    expect(r.stdout).toMatch(/--run-root/);
  });
});

describe('virt-launcher binary (test:///default)', () => {
  let root = '';
  let launcher: LauncherProcess | undefined;

  beforeEach(async () => {
    root = await makeRunRoot();
  });
  afterEach(async () => {
    await launcher?.stop('SIGKILL');
    launcher = undefined;
    await removeRunRoot(root);
  });

  it('serves CmdInfo and Ping on launcher-sock after "Marked as ready"', async () => {
    launcher = startLauncher(root, ['--libvirt-uri', 'test:///default', '--name', 'a', '--namespace', 'ns']);
    const ready = await launcher.waitForLog('Marked as ready');
    expect(ready.component).toBe('virt-launcher');
    expect(ready.pos).toMatch(/^[\w.-]+\.js:\d+$/);
    expect(Number.isNaN(Date.parse(ready.timestamp))).toBe(false);
    expect(await isSocket(launcher.readySocket)).toBe(true);
    expect(await isSocket(join(root, 'var/run/kubevirt/sockets/launcher-init-sock'))).toBe(false);

    const client = await connectLauncher(launcher.readySocket);
    expect(client.version).toBe(1);
    expect(await client.call('ping', {})).toEqual({ success: true, message: '' });
    // An RPC not built yet answers its explicit state (README, "Status"), never a fake success.
    const dump = await client.call('virtualMachineMemoryDump', { vmi: undefined, dumpPath: '' });
    expect(dump).toEqual({ success: false, message: 'unsupported: VirtualMachineMemoryDump' });
    const screenshot = await client.call('getScreenshot', { vmi: undefined, options: undefined });
    expect(screenshot.response).toEqual({ success: false, message: 'unsupported: GetScreenshot' });
    client.close();

    expect(await launcher.stop('SIGTERM')).toBe(0);
    expect(launcher.lines.map((l) => l.msg)).toContain('Exiting...');
    expect(await isSocket(launcher.readySocket)).toBe(false);
  });

  it('starts despite a stale init socket left by a crash', async () => {
    const sockets = join(root, 'var/run/kubevirt/sockets');
    await mkdir(sockets, { recursive: true });
    const stalePath = join(sockets, 'launcher-init-sock');
    // A process that dies by SIGKILL while listening leaves its socket file behind, as a crashed launcher does.
    const code = `require('net').createServer().listen(${JSON.stringify(stalePath)}, () => process.kill(process.pid, 'SIGKILL'))`;
    spawnSync(process.execPath, ['-e', code]);
    expect(await isSocket(stalePath)).toBe(true);
    launcher = startLauncher(root, ['--libvirt-uri', 'test:///default']);
    await launcher.waitForLog('Marked as ready');
    const client = await connectLauncher(launcher.readySocket);
    expect((await client.call('ping', {})).success).toBe(true);
    client.close();
  });

  it.each([
    [['--hook-sidecars', '1', '--qemu-timeout', '1s'], 'Failed to collect all expected sidecar hook sockets'],
    [['--simulate-crash'], 'Simulated virt-launcher crash'],
    [['--qemu-timeout', '1s'], 'timed out waiting for domain to be defined'],
  ])('exits 2 with a reason for %j', async (args, reason) => {
    launcher = startLauncher(root, ['--libvirt-uri', 'test:///default', '--name', 'none', ...args]);
    expect(await launcher.exited).toBe(2);
    expect(launcher.lines.find((l) => l.level === 'error')?.reason).toContain(reason);
  });

  it('rejects an unknown flag with exit code 2', async () => {
    launcher = startLauncher(root, ['--no-such-flag']);
    expect(await launcher.exited).toBe(2);
  });
});
