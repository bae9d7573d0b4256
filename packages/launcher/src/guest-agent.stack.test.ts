// Issue 19: the guest-agent RPCs against a real qemu-ga. The launcher starts its own libvirtd in a private root
// without /dev/kvm (TCG on purpose, so the test passes the same with, without or with a broken KVM) and boots
// the demo guest (tools/demo-guest runs Debian's qemu-ga on org.qemu.guest_agent.0). One boot; the steps run
// in order and each needs only the boot of beforeAll. The last step stops qemu-ga.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { connectLauncher } from './cmd-client.js';
import type { LauncherClient } from './cmd-client.js';
import { NotifyStandIn, request } from './testing/handler-standin.js';
import { startLauncherInPrivateRoot } from './testing/launcher-process.js';
import { stopLauncherRun } from './testing/launcher-run.js';
import type { LauncherProcess } from './testing/launcher-process.js';
import { demoGuestVmi, haveDemoGuest, stageDemoGuest } from './testing/demo-guest.js';

const UID = 'u-agent';
const DOMAIN = 'default_guest';
const SSH_KEY = `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIvlt${Math.random().toString(36).slice(2)} agent-test`;

/** The demo guest with an SSH key propagated through the agent, and (optionally) virt-handler's condition. */
function agentVmi(agentConnected = false): Buffer {
  const doc = JSON.parse(demoGuestVmi(UID, { containerDisk: false }).toString()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  doc.spec.accessCredentials = [
    {
      sshPublicKey: {
        source: { secret: { secretName: 'agent-keys' } },
        propagationMethod: { qemuGuestAgent: { users: ['root'] } },
      },
    },
  ];
  if (agentConnected) doc.status = { conditions: [{ type: 'AgentConnected', status: 'True' }] };
  return Buffer.from(JSON.stringify(doc));
}

/** Everything the guest prints on its serial console, collected for the whole suite. */
class ConsoleTap {
  text = '';
  private sock: Socket | undefined;
  constructor(private readonly path: string) {}
  open(timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve, reject) => {
      const attempt = (): void => {
        const sock = connect(this.path);
        sock.on('connect', () => {
          this.sock = sock;
          resolve();
        });
        sock.on('data', (d) => (this.text += d.toString()));
        sock.on('error', () => {
          if (this.sock === sock) return;
          if (Date.now() > deadline) reject(new Error(`console ${this.path} never opened`));
          else setTimeout(attempt, 200);
        });
      };
      attempt();
    });
  }
  count(line: string): number {
    return this.text.split(line).length - 1;
  }
  async waitFor(line: string, times: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(line) < times) {
      if (Date.now() > deadline) throw new Error(`"${line}" not seen ${times}x on the console:\n${this.text}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  close(): void {
    this.sock?.destroy();
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface DomainJson {
  Spec: { Devices?: { Channels?: Array<{ Target?: { Name?: string; State?: string } }> } };
  Status: { OSInfo?: { Id?: string; Name?: string }; FSFreezeStatus?: { Status?: string } };
}

describe.skipIf(!haveDemoGuest)('guest agent against a real qemu-ga (own libvirtd, TCG)', () => {
  let root = '';
  let launcher: LauncherProcess;
  let client: LauncherClient;
  let tap: ConsoleTap;
  const notify = new NotifyStandIn();

  const getDomain = async (): Promise<DomainJson> =>
    JSON.parse((await client.call('getDomain', {})).domain) as DomainJson;
  const agentChannel = (d: DomainJson) =>
    d.Spec.Devices?.Channels?.find((c) => c.Target?.Name === 'org.qemu.guest_agent.0')?.Target?.State;
  const exec = (cmd: string, args: string[], timeoutSeconds = 20) =>
    client.call('exec', { domainName: DOMAIN, Command: cmd, Args: args, timeoutSeconds }, (timeoutSeconds + 5) * 1000);

  beforeAll(async () => {
    root = await mkdtemp('/tmp/vlt-launcher-agent-');
    await stageDemoGuest(root, { containerDisk: false });
    const secretDir = join(root, 'run/kubevirt-private/secret/agent-keys-access-cred');
    await mkdir(secretDir, { recursive: true });
    await writeFile(join(secretDir, 'key1'), `${SSH_KEY}\n`);
    await notify.listen(join(root, 'run/kubevirt/domain-notify-pipe.sock'));
    const args = ['--name', 'guest', '--namespace', 'default', '--uid', UID, '--allow-emulation'];
    launcher = startLauncherInPrivateRoot(root, 'none', args);
    await launcher.waitForLog('Marked as ready', 90_000);
    client = await connectLauncher(launcher.readySocket, { callTimeoutMs: 10_000 });
    const res = await client.call('syncVirtualMachine', request(agentVmi()), 120_000);
    expect(res).toMatchObject({ success: true });
    tap = new ConsoleTap(join(root, `run/kubevirt-private/${UID}/virt-serial0`));
    await tap.open();
    // Connected: the channel state in GetDomain, and the poller's first round (OS info) behind it.
    await until(
      'agent connected with OS info',
      async () => {
        const d = await getDomain();
        return agentChannel(d) === 'connected' && d.Status.OSInfo?.Id ? d : undefined;
      },
      150_000,
    );
  }, 300_000);

  afterAll(() => stopLauncherRun({ console: tap, client, launcher, notify, root }), 60_000);

  it('GetDomain shows the agent channel connected and the OS info; a MODIFIED event carried it', async () => {
    const d = await getDomain();
    expect(agentChannel(d)).toBe('connected');
    expect(d.Status.OSInfo).toMatchObject({ Id: 'vlt-demo', Name: 'VLT demo guest', Machine: 'x86_64' });
    const ev = await notify.waitFor(
      (e) => (e.domain as unknown as DomainJson).Status.OSInfo?.Id === 'vlt-demo',
      30_000,
    );
    expect(ev.eventType).toBe('MODIFIED');
  });

  it('GetGuestInfo names the hostname and OS; GetFilesystems lists the guest filesystem; GetUsers answers', async () => {
    const info = await until(
      'guest info with hostname and filesystems',
      async () => {
        const res = await client.call('getGuestInfo', {});
        const j = JSON.parse(res.guestInfoResponse) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
        return j.hostname && j.fsInfo?.disks && j.guestAgentVersion ? j : undefined;
      },
      60_000,
    );
    expect(info.hostname).toBe('demo');
    expect(info.os).toMatchObject({ id: 'vlt-demo', name: 'VLT demo guest', prettyName: 'VLT demo guest 1 (busybox)' });
    expect(info.os.kernelRelease).toMatch(/cloud-amd64$/);
    expect(info.guestAgentVersion).toMatch(/^7\.2\./);
    expect(info.timezone).toBe('UTC, 0');
    const fsRes = await client.call('getFilesystems', {});
    expect(fsRes.response?.success).toBe(true);
    const fs = JSON.parse(fsRes.guestFilesystemsResponse) as Array<Record<string, unknown>>;
    expect(fs).toContainEqual(
      expect.objectContaining({ mountPoint: '/data', fileSystemType: 'ext2', diskName: 'ram0' }),
    );
    const usersRes = await client.call('getUsers', {});
    expect(usersRes.response?.success).toBe(true);
    expect(JSON.parse(usersRes.guestUserListResponse)).toEqual([]);
  });

  it('Exec runs a command in the guest: exit code and stdout', async () => {
    const hello = await exec('echo', ['hello']);
    expect(hello).toMatchObject({ exitCode: 0, stdOut: 'hello\n' });
    const failing = await exec('sh', ['-c', 'echo out; exit 3']);
    expect(failing).toMatchObject({ exitCode: 3, stdOut: 'out\n', response: { success: true } });
  });

  it('Freeze reports frozen, Unfreeze thaws; a Freeze with an unfreeze timeout thaws by itself', async () => {
    const vmiReq = request(agentVmi());
    // Whatever fails below, the later steps need a thawed guest.
    onTestFinished(async () => {
      await client.call('unfreezeVirtualMachine', vmiReq, 20_000).catch(() => undefined);
    });
    expect(
      await client.call('freezeVirtualMachine', { vmi: vmiReq.vmi, unfreezeTimeoutSeconds: 0 }, 60_000),
    ).toMatchObject({
      success: true,
    });
    expect((await getDomain()).Status.FSFreezeStatus?.Status).toBe('frozen');
    expect((await client.call('getGuestInfo', {})).guestInfoResponse).toContain('"fsFreezeStatus":"frozen"');
    // Really frozen: qemu-ga itself refuses guest-exec while frozen (a gRPC error, as KubeVirt's Exec failures).
    const refused = await exec('true', []).catch((e: unknown) => e);
    expect((refused as { details?: string }).details).toMatch(/agent is in frozen state/);
    expect(await client.call('unfreezeVirtualMachine', vmiReq, 20_000)).toMatchObject({ success: true });
    expect((await getDomain()).Status.FSFreezeStatus?.Status).toBe('thawed');
    // The safety thaw: nobody calls Unfreeze; the guest's own status must come back to thawed.
    await client.call('freezeVirtualMachine', { vmi: vmiReq.vmi, unfreezeTimeoutSeconds: 2 }, 60_000);
    expect((await getDomain()).Status.FSFreezeStatus?.Status).toBe('frozen');
    await until(
      'the safety thaw',
      async () => ((await getDomain()).Status.FSFreezeStatus?.Status === 'thawed' ? true : undefined),
      30_000,
    );
    await launcher.waitForLog(/Unfreeze was not called for vmi guest/, 5_000);
    const write = await exec('sh', ['-c', 'echo after > /data/thawed-write && cat /data/thawed-write'], 10);
    expect(write).toMatchObject({ exitCode: 0, stdOut: 'after\n' });
  });

  it("the SSH key from accessCredentials lands in root's authorized_keys", async () => {
    const keys = await until(
      'the key in /root/.ssh/authorized_keys',
      async () => {
        const r = await exec('cat', ['/root/.ssh/authorized_keys']);
        return r.stdOut.includes(SSH_KEY) ? r.stdOut : undefined;
      },
      90_000,
    );
    expect(keys.trim()).toBe(SSH_KEY);
    const meta = await until(
      'AccessCredential metadata',
      async () => {
        const d = (await getDomain()) as unknown as {
          Spec: { Metadata?: { KubeVirt?: { AccessCredential?: unknown } } };
        };
        return d.Spec.Metadata?.KubeVirt?.AccessCredential ?? undefined;
      },
      30_000,
    );
    expect(meta).toMatchObject({ Succeeded: true });
  }, 150_000);

  it('after an Unpause the launcher sets the stopped guest clock to the host time through the agent', async () => {
    expect(await exec('date', ['-u', '-s', '2001-02-03 04:05:06'])).toMatchObject({ exitCode: 0 });
    expect((await exec('date', ['-u', '+%Y'])).stdOut.trim()).toBe('2001');
    const vmiReq = request(agentVmi());
    expect(await client.call('pauseVirtualMachine', vmiReq, 20_000)).toMatchObject({ success: true });
    expect(await client.call('unpauseVirtualMachine', vmiReq, 20_000)).toMatchObject({ success: true });
    const year = String(new Date().getUTCFullYear());
    await until(
      'the guest clock set again',
      async () => ((await exec('date', ['-u', '+%Y'])).stdOut.trim() === year ? true : undefined),
      90_000,
    );
    await launcher.waitForLog('guest VM time sync finished successfully', 10_000);
  }, 150_000);

  it('SoftReboot goes through the agent when the VMI says it is connected: the guest boots again', async () => {
    const boots = tap.count('VLT-GUEST: booted');
    const res = await client.call('softRebootVirtualMachine', request(agentVmi(true)), 20_000);
    expect(res).toMatchObject({ success: true });
    await tap.waitFor('VLT-GUEST: agent reboot', 1, 60_000);
    await tap.waitFor('VLT-GUEST: booted', boots + 1, 120_000);
    expect(tap.count('power button')).toBe(0);
    // The agent comes back after the reboot.
    await until(
      'agent connected again',
      async () => ((await exec('true', [])).exitCode === 0 ? true : undefined),
      120_000,
    );
  });

  it('GuestPing succeeds, and fails within its timeout once qemu-ga is stopped', async () => {
    expect(await client.call('guestPing', { domainName: DOMAIN, timeoutSeconds: 5 }, 10_000)).toMatchObject({
      response: { success: true },
    });
    await exec('killall', ['qemu-ga']).catch(() => undefined); // the agent may die before it answers
    await until(
      'the agent channel disconnected',
      async () => (agentChannel(await getDomain()) === 'disconnected' ? true : undefined),
      60_000,
    );
    const failed = await client
      .call('guestPing', { domainName: DOMAIN, timeoutSeconds: 5 }, 10_000)
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as { details?: string }).details).toMatch(/Code=86|agent/i);
    await launcher.waitForLog('GuestAgentPing probe failed', 5_000);
  }, 120_000);
});
