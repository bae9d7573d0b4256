// The cmd server's limits: a request over 4 MiB is refused before it is buffered or parsed (KubeVirt's server
// keeps gRPC's 4 MiB default; ours used to accept 64 MiB and die of heap exhaustion on ~30 MiB), and a
// connection that sends nothing is closed after the idle time instead of being kept forever.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { connectLauncher } from '../cmd-client.js';
import { NotifyStandIn, request, vmiJson } from '../testing/handler-standin.js';
import { makeRunRoot, removeRunRoot, startLauncher } from '../testing/launcher-process.js';
import type { LauncherProcess } from '../testing/launcher-process.js';
import { CmdServer } from './server.js';
import { ok } from './rpc-table.js';

/** A VMI document padded to `bytes` with an annotation: valid JSON, just too big. */
function bigVmi(bytes: number): Buffer {
  const doc = JSON.parse(vmiJson('big').toString()) as { metadata: { annotations?: Record<string, string> } };
  doc.metadata.annotations = { padding: 'x'.repeat(bytes) };
  return Buffer.from(JSON.stringify(doc));
}

describe('the launcher binary refuses a request over 4 MiB and keeps serving', () => {
  let root = '';
  let launcher: LauncherProcess;
  // The handler's notify side: the final delete notification lets the launcher exit at once.
  const notify = new NotifyStandIn();

  beforeAll(async () => {
    root = await makeRunRoot();
    launcher = startLauncher(root, [
      '--libvirt-uri',
      'test:///default',
      '--name',
      'big',
      '--namespace',
      'default',
      '--uid',
      'uid-big',
      '--qemu-timeout',
      '120s',
      // test:///default runs no QEMU: emulation is chosen so nothing depends on the host's /dev/kvm.
      '--allow-emulation',
    ]);
    await notify.listen(launcher.notifySocket);
    await launcher.waitForLog('Marked as ready');
  });

  afterAll(async () => {
    // As virt-handler ends a VMI: Kill, then Delete; the deletion event lets the launcher exit without its waits.
    const client = await connectLauncher(launcher.readySocket).catch(() => undefined);
    if (client) {
      await client.call('killVirtualMachine', request(vmiJson('big'))).catch(() => undefined);
      await client.call('deleteVirtualMachine', request(vmiJson('big'))).catch(() => undefined);
      client.close();
    }
    await launcher.stop();
    notify.close();
    await removeRunRoot(root);
  });

  it('a 5 MiB SyncVirtualMachine gets RESOURCE_EXHAUSTED; Ping after it succeeds', async () => {
    const client = await connectLauncher(launcher.readySocket);
    try {
      const refused = client.call('syncVirtualMachine', request(bigVmi(5 * 1024 * 1024)), 30_000);
      await expect(refused).rejects.toMatchObject({ code: status.RESOURCE_EXHAUSTED });
      expect(await client.call('ping', {}, 10_000)).toEqual({ success: true, message: '' });
    } finally {
      client.close();
    }
    // A fresh connection too, and the process is still the same one.
    const again = await connectLauncher(launcher.readySocket);
    expect((await again.call('ping', {}, 10_000)).success).toBe(true);
    again.close();
    expect(launcher.child.exitCode).toBeNull();
    expect(launcher.lines.some((l) => l.msg === 'Domain defined.')).toBe(false);
  });

  it('a 3 MiB request is under the limit and is served', async () => {
    const client = await connectLauncher(launcher.readySocket);
    try {
      const vmi = bigVmi(3 * 1024 * 1024);
      const res = await client.call('syncVirtualMachine', request(vmi), 60_000);
      expect(res).toEqual({ success: true, message: '' });
      expect((await client.call('ping', {}, 10_000)).success).toBe(true);
    } finally {
      client.close();
    }
  });
});

describe('idle connections', () => {
  let root = '';
  const server = new CmdServer({ ping: async () => ok() }, { idleMs: 800 });

  beforeAll(async () => {
    root = await makeRunRoot();
    await server.listen(join(root, 'cmd.sock'));
  });

  afterAll(async () => {
    await server.stop();
    await removeRunRoot(root);
  });

  it('a raw connection that never sends a byte is closed by the server', async () => {
    const closedBy = await new Promise<string>((resolve) => {
      const sock = connect(join(root, 'cmd.sock'));
      // Guard against a server that never closes: the test's own bound, far above the configured 0.8 s.
      const guard = setTimeout(() => {
        sock.destroy();
        resolve('still open after 20 s');
      }, 20_000);
      sock.on('data', () => undefined); // the server's HTTP/2 settings and GOAWAY
      sock.on('close', () => {
        clearTimeout(guard);
        resolve('server');
      });
      sock.on('error', () => undefined);
    });
    expect(closedBy).toBe('server');
  });

  it('a connection in use is served normally', async () => {
    const client = await connectLauncher(join(root, 'cmd.sock'));
    expect((await client.call('ping', {}, 5000)).success).toBe(true);
    client.close();
  });
});
