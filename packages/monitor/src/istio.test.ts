import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { terminateIstioProxy } from './istio.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(handler: (res: ServerResponse, method: string) => void): Promise<string> {
  const server = createServer((req, res) => handler(res, req.method ?? ''));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

const envoyReady = (): Promise<string> =>
  serve((res) => {
    res.setHeader('server', 'envoy');
    res.end('ok');
  });

const fastBackoff = [1, 1, 1, 1];

describe('terminateIstioProxy', () => {
  it('posts quitquitquit when the readiness endpoint is served by envoy', async () => {
    const calls: string[] = [];
    const ready = await envoyReady();
    const quit = await serve((res, method) => {
      calls.push(method);
      res.end();
    });
    const done = await terminateIstioProxy({ readyUrl: `${ready}/healthz/ready`, quitUrl: `${quit}/quitquitquit` });
    expect(done).toBe(true);
    expect(calls).toEqual(['POST']);
  });

  it('leaves a non-envoy server alone', async () => {
    const calls: string[] = [];
    const ready = await serve((res) => res.end('not envoy'));
    const quit = await serve((res, method) => {
      calls.push(method);
      res.end();
    });
    expect(await terminateIstioProxy({ readyUrl: ready, quitUrl: quit })).toBe(false);
    expect(calls).toEqual([]);
  });

  it('retries a 503 answer, then succeeds', async () => {
    let calls = 0;
    const ready = await envoyReady();
    const quit = await serve((res) => {
      calls++;
      res.statusCode = calls < 3 ? 503 : 200;
      res.end();
    });
    expect(await terminateIstioProxy({ readyUrl: ready, quitUrl: quit, backoffMs: fastBackoff })).toBe(true);
    expect(calls).toBe(3);
  });

  it('gives up after four 503 answers and logs it', async () => {
    let calls = 0;
    const logged: string[] = [];
    const ready = await envoyReady();
    const quit = await serve((res) => {
      calls++;
      res.statusCode = 503;
      res.end();
    });
    const done = await terminateIstioProxy({
      readyUrl: ready,
      quitUrl: quit,
      backoffMs: fastBackoff,
      log: (_level, msg) => logged.push(msg),
    });
    expect(done).toBe(false);
    expect(calls).toBe(4);
    expect(logged[0]).toMatch(/^all attempts to terminate istio-proxy failed/);
  });

  it('does not retry another status and reports it', async () => {
    let calls = 0;
    const logged: string[] = [];
    const ready = await envoyReady();
    const quit = await serve((res) => {
      calls++;
      res.statusCode = 500;
      res.end();
    });
    const done = await terminateIstioProxy({ readyUrl: ready, quitUrl: quit, log: (_l, msg) => logged.push(msg) });
    expect(done).toBe(false);
    expect(calls).toBe(1);
    expect(logged).toEqual(['status code received: 500']);
  });

  it('treats a refused connection as no proxy at once, without the retry sleeps', async () => {
    const closed = await serve((res) => res.end());
    await new Promise((resolve) => servers.pop()?.close(resolve));
    // A retry would sleep ten minutes and the test would fail on its timeout.
    const never = [600_000, 600_000];
    expect(await terminateIstioProxy({ readyUrl: closed, quitUrl: closed, backoffMs: never })).toBe(false);
  }, 20_000);
});
