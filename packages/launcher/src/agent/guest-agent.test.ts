// The guest-agent logic against an in-memory guest (testing/fake-agent.ts): KubeVirt's JSON shapes, the store's
// change announcements, the connected state, GuestPing, Exec, Freeze with the safety thaw, SoftReboot, access
// credentials. guest-agent.stack.test.ts checks the same against a real qemu-ga.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { NO_AGENT } from '../cmd-server/no-agent.js';
import { parseFlags } from '../flags.js';
import { FakeAgentConnection } from '../testing/fake-agent.js';
import type { FakeAgentDomain } from '../testing/fake-agent.js';
import { AccessCredentials, readKeys, sshKeyUsers } from './access-credentials.js';
import { ExecTimeoutError } from './exec.js';
import { FreezeRequestError } from './freeze.js';
import { GuestAgent } from './guest-agent.js';
import { filesystemsJson, guestInfoJson, usersJson } from './guest-info-json.js';

const NAME = 'ns1_vm1';

describe('the answers without any agent data', () => {
  it('are exactly the no-agent answers', () => {
    expect(guestInfoJson({})).toBe(NO_AGENT.guestInfo);
    expect(usersJson({})).toBe(NO_AGENT.users);
    expect(filesystemsJson({})).toBe(NO_AGENT.filesystems);
  });
});

describe('GuestAgent with an in-memory guest', () => {
  let conn: FakeAgentConnection;
  let dom: FakeAgentDomain;
  let agent: GuestAgent;
  let changes: number;
  const events: Array<{ reason: string; message: string }> = [];

  beforeEach(async () => {
    conn = await FakeAgentConnection.open();
    dom = conn.add(NAME);
    changes = 0;
    events.length = 0;
    agent = new GuestAgent({
      domainName: NAME,
      conn: () => conn,
      onChange: () => changes++,
      sendEvent: async (e) => void events.push(e),
    });
  });

  afterEach(() => {
    agent.close();
    vi.useRealTimers();
  });

  it('reads the channel state from the live XML at attach, and follows agent-lifecycle events', async () => {
    await agent.attach(conn);
    expect(agent.isConnected).toBe(true);
    expect(agent.overlay().agentChannelState).toBe('connected');
    expect(agent.poller.running).toBe(true);
    conn.emit('agentLifecycle', { name: NAME, state: 'disconnected', reason: 'channel', stateCode: 2, reasonCode: 2 });
    expect(agent.overlay().agentChannelState).toBe('disconnected');
    expect(agent.poller.running).toBe(false);
    expect(changes).toBeGreaterThanOrEqual(1);
    // Another domain's events are not ours.
    conn.emit('agentLifecycle', {
      name: 'other_vm',
      state: 'connected',
      reason: 'channel',
      stateCode: 1,
      reasonCode: 2,
    });
    expect(agent.isConnected).toBe(false);
  });

  it('stops polling while the domain is suspended and resumes when it runs again', async () => {
    await agent.attach(conn);
    conn.emit('domainEvent', { name: NAME, event: 'suspended', detail: 'paused' });
    expect(agent.poller.running).toBe(false);
    conn.emit('domainEvent', { name: NAME, event: 'resumed', detail: 'unpaused' });
    expect(agent.poller.running).toBe(true);
  });

  it("fills the store in KubeVirt's shapes: GetGuestInfo JSON, overlay without loopback, IPv4 as primary IP", async () => {
    await agent.poller.pollAll();
    const info = JSON.parse(guestInfoJson(agent.store.get())) as Record<string, unknown>;
    expect(Object.keys(info)).toEqual([
      'guestAgentVersion',
      'supportedCommands',
      'hostname',
      'os',
      'timezone',
      'userList',
      'fsInfo',
      'fsFreezeStatus',
    ]);
    expect(info).toMatchObject({
      guestAgentVersion: '7.2.0',
      supportedCommands: [{ name: 'guest-ping', enabled: true }],
      hostname: 'vm1',
      os: {
        name: 'Debian GNU/Linux',
        prettyName: 'Debian GNU/Linux 12',
        versionId: '12',
        machine: 'x86_64',
        id: 'debian',
      },
      timezone: 'UTC, 0',
      userList: [{ userName: 'root', loginTime: 1_700_000_000.5 }],
      fsInfo: {
        disks: [
          {
            diskName: 'vda1',
            mountPoint: '/',
            fileSystemType: 'ext4',
            usedBytes: 10,
            totalBytes: 100,
            disk: [{ serial: 'abc', busType: 'virtio' }],
          },
        ],
      },
      fsFreezeStatus: 'thawed',
    });
    expect(agent.overlay().Interfaces).toEqual([
      { Mac: '02:00:00:00:00:01', Ip: '10.0.2.2', IPs: ['fd10::2', '10.0.2.2'], InterfaceName: 'eth0' },
    ]);
    expect(agent.overlay().OSInfo?.Id).toBe('debian');
  });

  it('announces a change of OS info, interfaces or freeze status once, not a repeat of the same facts', async () => {
    await agent.poller.pollAll();
    const after = changes;
    expect(after).toBeGreaterThan(0);
    await agent.poller.pollAll();
    expect(changes).toBe(after);
    dom.info = { ...dom.info, os: { ...dom.info.os, prettyName: 'Debian GNU/Linux 13' } };
    await agent.poller.pollAll();
    expect(changes).toBe(after + 1);
    // Users are read by GetUsers only: no domain event.
    dom.info = { ...dom.info, users: [] };
    await agent.poller.pollAll();
    expect(changes).toBe(after + 1);
  });

  it('forgets the facts when the domain stops', async () => {
    await agent.attach(conn);
    await agent.poller.pollAll();
    conn.emit('domainEvent', { name: NAME, event: 'stopped', detail: 'shutdown' });
    expect(guestInfoJson(agent.store.get())).toBe(NO_AGENT.guestInfo);
  });

  it('GuestPing passes, then fails with a GuestAgentPingFailed event once the agent is gone', async () => {
    await agent.ping(NAME, 5, 'vm1');
    dom.agentRunning = false;
    const err = await agent.ping(NAME, 5, 'vm1').catch((e: unknown) => e);
    expect((err as { codeName?: string }).codeName).toBe('AGENT_UNRESPONSIVE');
    expect(events).toEqual([
      { type: 'Warning', reason: 'GuestAgentPingFailed', message: 'GuestAgentPing probe failed for VMI vm1' },
    ]);
  });

  it('GuestPing forgives an unresponsive agent while the domain is paused by the user', async () => {
    dom.agentRunning = false;
    dom.stateCode = 3;
    dom.reasonCode = 1;
    await expect(agent.ping(NAME, 5, 'vm1')).resolves.toBeUndefined();
    expect(events).toEqual([]);
  });

  it('Exec returns exit code and stdout, and times out a command that does not exit', async () => {
    dom.programs.set('echo', { exitcode: 0, out: 'hello\n', polls: 1 });
    dom.programs.set('sleep', { exitcode: 0, out: '', polls: 1_000_000 });
    expect(await agent.exec(NAME, 'echo', ['hello'], 1)).toEqual({ exitCode: 0, stdout: 'hello\n' });
    vi.useFakeTimers();
    const pending = agent.exec(NAME, 'sleep', ['100'], 1).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1500);
    const err = await pending;
    expect(err).toBeInstanceOf(ExecTimeoutError);
    expect((err as Error).message).toMatch(/^Timed out waiting for guest pid \[\d+\] for command \[sleep\] to exit$/);
  });

  it('Exec refuses bad input by name before asking the agent', async () => {
    await expect(agent.exec(NAME, '', [], 5)).rejects.toThrow(/exec: command "" is empty/);
    await expect(agent.exec(NAME, 'true', [], 0)).rejects.toThrow(/timeoutSeconds 0/);
    expect(dom.commands).toEqual([]);
  });

  it('Freeze is idempotent, Unfreeze thaws, and the safety thaw comes after unfreezeTimeoutSeconds', async () => {
    await agent.freezer.freeze(NAME, 'vm1', 0);
    await agent.freezer.freeze(NAME, 'vm1', 0);
    expect(dom.frozen).toBe(true);
    expect(agent.overlay().FSFreezeStatus).toEqual({ Status: 'frozen' });
    await agent.freezer.unfreeze(NAME);
    expect(dom.frozen).toBe(false);

    vi.useFakeTimers();
    await agent.freezer.freeze(NAME, 'vm1', 30);
    expect(agent.freezer.safetyThawPending).toBe(true);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(dom.frozen).toBe(true);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(dom.frozen).toBe(false);
    expect(agent.overlay().FSFreezeStatus).toEqual({ Status: 'thawed' });
  });

  it('an Unfreeze cancels the pending safety thaw; a negative timeout is refused by name', async () => {
    vi.useFakeTimers();
    await agent.freezer.freeze(NAME, 'vm1', 30);
    await agent.freezer.unfreeze(NAME);
    expect(agent.freezer.safetyThawPending).toBe(false);
    await expect(agent.freezer.freeze(NAME, 'vm1', -1)).rejects.toBeInstanceOf(FreezeRequestError);
  });

  it('SoftReboot goes through the agent only when the VMI says it is connected', async () => {
    const acpi = vi.fn(async () => undefined);
    await agent.softReboot(NAME, true, acpi);
    expect(dom.rebootModes).toEqual(['agent']);
    expect(acpi).not.toHaveBeenCalled();
    await agent.softReboot(NAME, false, acpi);
    expect(acpi).toHaveBeenCalledTimes(1);
  });

  it('sets the guest time after an Unpause, once per launcher', async () => {
    vi.useFakeTimers();
    const done = agent.time.setAfterUnpause(NAME);
    await vi.advanceTimersByTimeAsync(1_000);
    await done;
    expect(dom.timeSet).toHaveLength(1);
    await agent.time.setAfterUnpause(NAME);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(dom.timeSet).toHaveLength(1);
  });
});

describe('access credentials (qemuGuestAgent propagation)', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const creds = [
    {
      sshPublicKey: {
        source: { secret: { secretName: 'keys-a' } },
        propagationMethod: { qemuGuestAgent: { users: ['root', 'alice'] } },
      },
    },
    { sshPublicKey: { source: { secret: { secretName: 'keys-nocloud' } }, propagationMethod: { noCloud: {} } } },
  ];

  it("writes every user's keys from the secret files (skipping '..' entries) and reports success", async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-agent-creds-'));
    const secret = join(dir, 'keys-a-access-cred');
    await mkdir(join(secret, '..data'), { recursive: true });
    await writeFile(join(secret, 'a'), 'ssh-ed25519 AAAA one\n\n  ssh-ed25519 AAAA two  \n');
    await writeFile(join(secret, '..2024'), 'ignored');
    expect(await readKeys(secret)).toEqual(['ssh-ed25519 AAAA one', 'ssh-ed25519 AAAA two']);
    expect([...sshKeyUsers(creds).keys()]).toEqual(['root', 'alice']);

    const conn = await FakeAgentConnection.open();
    const dom = conn.add(NAME);
    const results: Array<{ Succeeded: boolean; Message: string }> = [];
    const ac = new AccessCredentials({
      secretBaseDir: dir,
      lookup: (n) => conn.lookupDomainByName(n),
      report: (r) => results.push(r),
    });
    expect(await ac.sync(creds, NAME)).toBe(false);
    expect(dom.keys.get('root')).toEqual(['ssh-ed25519 AAAA one', 'ssh-ed25519 AAAA two']);
    expect(dom.keys.get('alice')).toEqual(['ssh-ed25519 AAAA one', 'ssh-ed25519 AAAA two']);
    expect(results.at(-1)).toEqual({ Succeeded: true, Message: '' });

    dom.agentRunning = false;
    expect(await ac.sync(creds, NAME)).toBe(true);
    expect(results.at(-1)).toEqual({ Succeeded: false, Message: 'Guest agent is offline' });
  });
});

describe('agent poll intervals (flags)', () => {
  it("default to KubeVirt's and take Go durations; a zero period is refused by name", () => {
    expect(parseFlags([]).agentIntervals).toEqual({
      sysMs: 120_000,
      fileMs: 300_000,
      userMs: 10_000,
      versionMs: 300_000,
      fsFreezeStatusMs: 5_000,
    });
    expect(parseFlags(['--qemu-agent-user-interval', '1m30s']).agentIntervals?.userMs).toBe(90_000);
    expect(() => parseFlags(['--qemu-fsfreeze-status-interval', '0s'])).toThrow(/--qemu-fsfreeze-status-interval/);
  });
});
