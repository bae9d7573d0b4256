// connectLauncher against real grpc-js servers on unix sockets in a temp dir: the handshake's outcomes and
// the typed errors each failure becomes.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:net';
import type { Server as NetServer } from 'node:net';
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import type { ServiceError, UntypedServiceImplementation } from '@grpc/grpc-js';
import { CmdInfoService } from './gen/kubevirt/cmd/info/info.js';
import { CmdService } from './gen/kubevirt/cmd/v1/cmd.js';
import { connectLauncher, LauncherConnectError, VersionMismatchError } from './cmd-client.js';

type Reply = (err: Partial<ServiceError> | null, res?: unknown) => void;

async function serve(info: (cb: Reply) => void): Promise<{ path: string; server: Server; connections: () => number }> {
  const dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-client-'));
  dirs.push(dir);
  const path = join(dir, 'launcher-sock');
  const server = new Server();
  servers.push(server);
  server.addService(CmdInfoService, { info: (_call: unknown, cb: Reply) => info(cb) } as UntypedServiceImplementation);
  server.addService(CmdService, {
    ping: (_call: unknown, cb: Reply) => cb(null, { success: true, message: '' }),
  } as UntypedServiceImplementation);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${path}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  // A plain unix-socket relay in front of the server counts the connections a client opens.
  let sessions = 0;
  const front = join(dir, 'front-sock');
  const relay = createServer((conn) => {
    sessions += 1;
    const back = connect(path);
    conn.pipe(back).pipe(conn);
    conn.on('error', () => back.destroy());
    back.on('error', () => conn.destroy());
  });
  relays.push(relay);
  await new Promise<void>((resolve) => relay.listen(front, resolve));
  return { path: front, server, connections: () => sessions };
}

const dirs: string[] = [];
const servers: Server[] = [];
const relays: NetServer[] = [];
afterEach(async () => {
  servers.splice(0).forEach((s) => s.forceShutdown());
  relays.splice(0).forEach((r) => r.close());
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('connectLauncher', () => {
  it('negotiates the highest common version and pings over the one channel it dialed', async () => {
    const { path, connections } = await serve((cb) => cb(null, { supportedCmdVersions: [3, 1] }));
    const client = await connectLauncher(path);
    try {
      expect(client.serverVersions).toEqual([3, 1]);
      expect(client.version).toBe(1);
      expect(await client.call('ping', {})).toEqual({ success: true, message: '' });
      expect(connections()).toBe(1);
    } finally {
      client.close();
    }
  });

  it('refuses a server with no version in common', async () => {
    const { path } = await serve((cb) => cb(null, { supportedCmdVersions: [2] }));
    const err = await connectLauncher(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VersionMismatchError);
    expect((err as VersionMismatchError).server).toEqual([2]);
  });

  it('names the Info stage when the handshake fails', async () => {
    const { path } = await serve((cb) => cb({ code: status.INTERNAL, details: 'info broke' }));
    const err = await connectLauncher(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LauncherConnectError);
    expect((err as LauncherConnectError).stage).toBe('info');
    expect((err as LauncherConnectError).message).toContain('info broke');
  });

  it('names the dial stage when nothing listens on the socket', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-client-'));
    dirs.push(dir);
    const err = await connectLauncher(join(dir, 'absent-sock'), { dialTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LauncherConnectError);
    expect((err as LauncherConnectError).stage).toBe('dial');
    expect((err as LauncherConnectError).socketPath).toBe(join(dir, 'absent-sock'));
  });

  it('gives each call its own deadline', async () => {
    const { path, server } = await serve((cb) => cb(null, { supportedCmdVersions: [1] }));
    // A Ping that never answers: the call must end with DEADLINE_EXCEEDED, not hang.
    server.removeService(CmdService);
    server.addService(CmdService, { ping: () => undefined } as UntypedServiceImplementation);
    const client = await connectLauncher(path);
    try {
      const err = (await client.call('ping', {}, 200).catch((e: unknown) => e)) as ServiceError;
      expect(err.code).toBe(status.DEADLINE_EXCEEDED);
    } finally {
      client.close();
    }
  });
});
