// The self-ping against the real cmd server on a Unix socket: it passes only when Info and Ping both answer,
// and otherwise gives up with the reason (never reports a broken server as ready).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LauncherPanic } from '../errors.js';
import { ok } from './rpc-table.js';
import { selfPing } from './self-ping.js';
import { CmdServer } from './server.js';

let dir: string;
let socket: string;
const servers: CmdServer[] = [];
const plain: Server[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vlt-self-ping-'));
  socket = join(dir, 'launcher-init-sock');
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await Promise.all(plain.splice(0).map((s) => new Promise((r) => s.close(r))));
  await rm(dir, { recursive: true, force: true });
});

async function serve(ping: () => ReturnType<typeof ok>): Promise<void> {
  const server = new CmdServer({ ping: async () => ping() });
  servers.push(server);
  await server.listen(socket);
}

describe('selfPing', () => {
  it('passes once the server answers Info and Ping', async () => {
    let pings = 0;
    await serve(() => {
      pings++;
      return ok();
    });
    await selfPing(socket, 10, 2000);
    expect(pings).toBe(1);
  });

  it('fails with the server message when Ping answers without success, after retrying', async () => {
    let pings = 0;
    await serve(() => {
      pings++;
      return { success: false, message: 'not yet' };
    });
    const err = await selfPing(socket, 20, 200).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LauncherPanic);
    expect((err as Error).message).toBe('failed to connect to cmd server: not yet');
    expect(pings).toBeGreaterThan(1);
  });

  it('fails naming the cause when nothing listens on the socket', async () => {
    const err = await selfPing(socket, 20, 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LauncherPanic);
    expect((err as Error).message).toMatch(/^failed to connect to cmd server: .*ENOENT/);
  });

  it('fails when the socket speaks something other than gRPC', async () => {
    // It reads what comes (a paused socket would never see the client's end) and answers with HTTP/1.1.
    const server = createServer((c) => c.resume().end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    plain.push(server);
    await new Promise<void>((r) => server.listen(socket, r));
    const err = await selfPing(socket, 20, 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LauncherPanic);
    expect((err as Error).message).toMatch(/^failed to connect to cmd server: /);
    // Every attempt's connection is closed by the client (the server only half-closed its side).
    await new Promise((r) => setTimeout(r, 100));
    const open = await new Promise<number>((r) => server.getConnections((_, n) => r(n)));
    expect(open).toBe(0);
  });

  it('fails when the server does not implement Ping', async () => {
    const server = new CmdServer({});
    servers.push(server);
    await server.listen(socket);
    const err = await selfPing(socket, 20, 100).catch((e: unknown) => e);
    expect((err as Error).message).toBe('failed to connect to cmd server: unsupported: Ping');
  });
});
