// launcherctl's guest-agent commands against a stand-in launcher on a real unix socket.
import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { runLauncherctl } from './run.js';
import { captureIo, startStandIn } from './testing/standin.js';
import type { StandIn } from './testing/standin.js';

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

function domain(agentState?: string): string {
  return JSON.stringify({
    ObjectMeta: { name: 'vm1', namespace: 'ns1', uid: 'u1' },
    Spec: {
      Name: 'ns1_vm1',
      Devices: { Channels: [{ Target: { Name: 'org.qemu.guest_agent.0', State: agentState } }] },
    },
    Status: {
      Status: 'Running',
      Reason: 'Unknown',
      OSInfo: { PrettyName: 'Debian GNU/Linux 12' },
      Interfaces: [{ InterfaceName: 'eth0', Mac: '02:00:00:00:00:01', Ip: '10.0.2.2', IPs: ['10.0.2.2', 'fd10::2'] }],
    },
  });
}

describe('guest-agent commands', () => {
  it('exec -- CMD ARGS sends the command to the domain GetDomain names, with timeout + 5 s as deadline', async () => {
    standIn = await startStandIn({
      getDomain: () => ({ response: ok, domain: domain('connected') }),
      exec: () => ({ response: ok, exitCode: 3, stdOut: 'hi\n' }),
    });
    const r = await ctl('--socket', standIn.socketPath, 'exec', '--timeout', '7', '--', 'echo', '-n', 'hi');
    expect(r.code).toBe(0);
    expect(r.out).toBe('hi\n(exit 3)\n');
    const sent = standIn.received.find((x) => x.method === 'exec');
    expect(sent?.request).toEqual({ domainName: 'ns1_vm1', Command: 'echo', Args: ['-n', 'hi'], timeoutSeconds: 7 });
  });

  it('exec without a command, or with a timeout that is not a number, is bad usage (exit 2, nothing sent)', async () => {
    standIn = await startStandIn({});
    expect((await ctl('--socket', standIn.socketPath, 'exec')).code).toBe(2);
    const bad = await ctl('--socket', standIn.socketPath, 'exec', '--timeout', 'soon', '--', 'true');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--timeout must be a whole number of seconds, got "soon"');
    expect(standIn.received.filter((x) => x.method === 'exec')).toEqual([]);
  });

  it('guest-ping reports a gRPC failure as the launcher failure it is (exit 1)', async () => {
    standIn = await startStandIn({
      getDomain: () => ({ response: ok, domain: domain('disconnected') }),
      guestPing: () => ({ code: status.UNKNOWN, details: 'agent is not connected' }),
    });
    const r = await ctl('--socket', standIn.socketPath, 'guest-ping', '--timeout', '2');
    expect(r.code).toBe(1);
    expect(r.err).toContain('agent is not connected');
  });

  it('freeze passes --unfreeze-timeout; soft-reboot adds AgentConnected only when the channel is connected', async () => {
    let state = 'connected';
    standIn = await startStandIn({
      getDomain: () => ({ response: ok, domain: domain(state) }),
      freezeVirtualMachine: () => ok,
      softRebootVirtualMachine: () => ok,
    });
    const frozen = await ctl('--socket', standIn.socketPath, 'freeze', '--unfreeze-timeout', '30');
    expect(frozen.out).toContain('froze ns1/vm1 (thawed automatically after 30 s)');
    const freezeReq = standIn.received.find((x) => x.method === 'freezeVirtualMachine')?.request as {
      unfreezeTimeoutSeconds: number;
    };
    expect(freezeReq.unfreezeTimeoutSeconds).toBe(30);

    const viaAgent = await ctl('--socket', standIn.socketPath, 'soft-reboot');
    expect(viaAgent.out).toContain('(guest agent)');
    state = 'disconnected';
    const viaAcpi = await ctl('--socket', standIn.socketPath, 'soft-reboot');
    expect(viaAcpi.out).toContain('(ACPI)');
    const sent = standIn.received
      .filter((x) => x.method === 'softRebootVirtualMachine')
      .map(
        (x) =>
          JSON.parse((x.request as { vmi: { vmiJson: Buffer } }).vmi.vmiJson.toString()) as {
            status: { conditions: unknown[] };
          },
      );
    expect(sent[0]?.status.conditions).toEqual([{ type: 'AgentConnected', status: 'True' }]);
    expect(sent[1]?.status.conditions).toEqual([]);
  });

  it('guest-info, users and filesystems show the JSON the launcher returned', async () => {
    standIn = await startStandIn({
      getGuestInfo: () => ({
        response: ok,
        guestInfoResponse: JSON.stringify({
          guestAgentVersion: '7.2.22',
          hostname: 'demo',
          os: { prettyName: 'VLT demo guest 1', id: 'vlt-demo', versionId: '1' },
          timezone: 'UTC, 0',
          fsInfo: {
            disks: [{ diskName: 'ram0', mountPoint: '/data', fileSystemType: 'ext2', usedBytes: 1, totalBytes: 2 }],
          },
        }),
      }),
      getUsers: () => ({ response: ok, guestUserListResponse: '[{"userName":"root"}]' }),
      getFilesystems: () => ({
        response: ok,
        guestFilesystemsResponse:
          '[{"diskName":"ram0","mountPoint":"/data","fileSystemType":"ext2","usedBytes":1,"totalBytes":2}]',
      }),
    });
    const info = await ctl('--socket', standIn.socketPath, 'guest-info');
    expect(info.out).toMatch(/hostname\s+demo/);
    expect(info.out).toMatch(/os\s+VLT demo guest 1/);
    expect(info.out).toMatch(/filesystems\s+\/data \(ext2\)/);
    expect((await ctl('--socket', standIn.socketPath, 'users')).out).toBe('root\n');
    const fs = await ctl('--socket', standIn.socketPath, 'filesystems', '--json');
    expect(JSON.parse(fs.out)).toMatchObject({
      ok: true,
      command: 'GetFilesystems',
      filesystems: [{ mountPoint: '/data' }],
    });
  });

  it('domain shows the agent state, the guest OS and the IPs the agent reported', async () => {
    standIn = await startStandIn({ getDomain: () => ({ response: ok, domain: domain('connected') }) });
    const r = await ctl('--socket', standIn.socketPath, 'domain');
    expect(r.out).toMatch(/guest agent\s+connected/);
    expect(r.out).toMatch(/guest os\s+Debian GNU\/Linux 12/);
    expect(r.out).toMatch(/guest eth0\s+10\.0\.2\.2, fd10::2 \(02:00:00:00:00:01\)/);
  });
});
