// The guest-agent calls against a real libvirtd and a TCG demo guest running Debian's qemu-ga
// (tools/demo-guest): one boot, checked in ordered steps; the last step stops the agent.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ErrorCode, GuestInfoTypes, LibvirtError, connect } from './index.js';
import type { AgentLifecycleEvent, Connection, Domain } from './index.js';
import { startPrivateDaemon } from './private-daemon.js';
import type { PrivateDaemon } from './private-daemon.js';
import { uniqueName } from './test-helpers.js';

const repo = resolve(fileURLToPath(import.meta.url), '../../../..');
const guestDir = join(repo, '.cache/demo-guest');

function guestXml(name: string, consoleLog: string): string {
  return `<domain type='qemu'><name>${name}</name><memory unit='MiB'>192</memory><vcpu>1</vcpu>
  <os><type arch='x86_64' machine='q35'>hvm</type><kernel>${guestDir}/vmlinuz</kernel>
  <initrd>${guestDir}/initramfs.gz</initrd><cmdline>console=ttyS0 quiet panic=-1 rdinit=/init</cmdline></os>
  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator><video><model type='none'/></video>
  <serial type='file'><source path='${consoleLog}'/><target port='0'/></serial>
  <channel type='unix'><source mode='bind'/><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
  </devices></domain>`;
}

/** The next agent-lifecycle event of `name` in `state`; rejects after `ms`. */
function agentState(conn: Connection, name: string, state: string, ms: number): Promise<AgentLifecycleEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      conn.off('agentLifecycle', listener);
      reject(new Error(`agent of ${name} not ${state} within ${ms} ms`));
    }, ms);
    const listener = (e: AgentLifecycleEvent): void => {
      if (e.name !== name || e.state !== state) return;
      clearTimeout(timer);
      conn.off('agentLifecycle', listener);
      resolve(e);
    };
    conn.on('agentLifecycle', listener);
  });
}

async function agentJson<T>(dom: Domain, execute: string, args?: object): Promise<T> {
  const reply = await dom.qemuAgentCommand(args ? { execute, arguments: args } : { execute }, 30);
  return (JSON.parse(reply) as { return: T }).return;
}

/** Runs a command in the guest with guest-exec and returns its exit code and stdout. */
async function guestExec(dom: Domain, path: string, arg: string[]): Promise<{ exitcode: number; out: string }> {
  const { pid } = await agentJson<{ pid: number }>(dom, 'guest-exec', { path, arg, 'capture-output': true });
  for (;;) {
    const s = await agentJson<{ exited: boolean; exitcode?: number; 'out-data'?: string }>(dom, 'guest-exec-status', {
      pid,
    });
    if (s.exited) return { exitcode: s.exitcode ?? -1, out: Buffer.from(s['out-data'] ?? '', 'base64').toString() };
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('guest-agent calls against a real qemu-ga', () => {
  let daemon: PrivateDaemon;
  let conn: Connection;
  let dom: Domain;
  const name = uniqueName('vlt-agent');
  let consoleLog: string;

  beforeAll(async () => {
    await execa('bash', [join(repo, 'tools/demo-guest/build.sh')]);
    expect(existsSync(join(guestDir, 'initramfs.gz'))).toBe(true);
    daemon = await startPrivateDaemon('vlt-libvirt-agent');
    conn = await connect(daemon.uri);
    consoleLog = join(daemon.root, 'console.log');
    dom = await conn.defineXML(guestXml(name, consoleLog));
    const connected = agentState(conn, name, 'connected', 150_000);
    await dom.create();
    await connected;
  }, 300_000);

  afterAll(async () => {
    await dom?.destroy().catch(() => undefined);
    await dom?.undefine().catch(() => undefined);
    await conn?.close().catch(() => undefined);
    await daemon?.stop();
  }, 60_000);

  it('reads OS, hostname, timezone, users, filesystems and interfaces with virDomainGetGuestInfo', async () => {
    const info = await dom.getGuestInfo();
    expect(info.os).toMatchObject({ id: 'vlt-demo', name: 'VLT demo guest', versionId: '1', machine: 'x86_64' });
    expect(info.os?.kernelRelease).toMatch(/cloud-amd64$/);
    expect(info.hostname).toBe('demo');
    expect(info.timezone).toEqual({ name: 'UTC', offset: 0 });
    expect(info.users).toEqual([]);
    expect(info.filesystems).toContainEqual(expect.objectContaining({ mountpoint: '/data', fstype: 'ext2' }));
    expect(info.interfaces?.find((i) => i.name === 'lo')?.addrs).toContainEqual({
      type: 'ipv4',
      addr: '127.0.0.1',
      prefix: 8,
    });
    // Only what was asked for comes back.
    const osOnly = await dom.getGuestInfo(GuestInfoTypes.OS);
    expect(osOnly.os?.id).toBe('vlt-demo');
    expect(osOnly.filesystems).toBeUndefined();
    expect(osOnly.hostname).toBeUndefined();
  });

  it('freezes and thaws the guest filesystems', async () => {
    expect(await dom.fsFreeze()).toBeGreaterThanOrEqual(1);
    expect(await agentJson<string>(dom, 'guest-fsfreeze-status')).toBe('frozen');
    expect(await dom.fsThaw()).toBeGreaterThanOrEqual(1);
    expect(await agentJson<string>(dom, 'guest-fsfreeze-status')).toBe('thawed');
  });

  it('sets the guest clock', async () => {
    await dom.setTime({ time: new Date('2030-01-02T03:04:05Z') });
    const { out } = await guestExec(dom, 'date', ['-u', '+%Y']);
    expect(out.trim()).toBe('2030');
    await dom.setTime();
    expect((await guestExec(dom, 'date', ['-u', '+%Y'])).out.trim()).toBe(String(new Date().getUTCFullYear()));
  });

  it("writes, appends to and reads root's authorized_keys", async () => {
    const key1 = `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${uniqueName('k')} one@test`;
    const key2 = `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${uniqueName('k')} two@test`;
    await dom.authorizedSSHKeysSet('root', [key1]);
    await dom.authorizedSSHKeysSet('root', [key2], { append: true });
    // qemu-ga merges the keys it is given into the file in no promised order.
    expect((await dom.authorizedSSHKeysGet('root')).sort()).toEqual([key1, key2].sort());
    expect((await guestExec(dom, 'cat', ['/root/.ssh/authorized_keys'])).out).toContain(key2);
    await dom.authorizedSSHKeysSet('root', [key1], { remove: true });
    expect(await dom.authorizedSSHKeysGet('root')).toEqual([key2]);
  });

  it('rejects bad input with a typed error before calling libvirt', async () => {
    const err = await dom.authorizedSSHKeysSet('root', ['a\nb']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).toBe(ErrorCode.INVALID_ARG);
    const guestErr = await dom.authorizedSSHKeysGet('no-such-user').catch((e: unknown) => e);
    expect(guestErr).toBeInstanceOf(LibvirtError);
    expect((guestErr as LibvirtError).message).toMatch(/no-such-user|user/i);
  });

  it('reports the agent disconnected and answers AGENT_UNRESPONSIVE once qemu-ga is stopped', async () => {
    const disconnected = agentState(conn, name, 'disconnected', 60_000);
    await dom.qemuAgentCommand({ execute: 'guest-exec', arguments: { path: 'killall', arg: ['qemu-ga'] } }, 30);
    const ev = await disconnected;
    expect(ev.reason).toBe('channel');
    const err = await dom.qemuAgentCommand({ execute: 'guest-ping' }, 5).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).codeName).toBe('AGENT_UNRESPONSIVE');
    const infoErr = await dom.getGuestInfo(GuestInfoTypes.OS).catch((e: unknown) => e);
    expect((infoErr as LibvirtError).codeName).toBe('AGENT_UNRESPONSIVE');
    expect(await readFile(consoleLog, 'utf8')).toContain('VLT-GUEST: qemu-ga started');
  });
});
