import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Notifier, NotifyError } from './notifier.js';
import { NotifyStandIn } from '../testing/handler-standin.js';

const event = (status: string) => ({
  domainJSON: Buffer.from(JSON.stringify({ ObjectMeta: { name: 'vm' }, Status: { Status: status } })),
  statusJSON: Buffer.alloc(0),
  eventType: 'MODIFIED',
});

describe('Notifier', () => {
  let dir = '';
  const servers: NotifyStandIn[] = [];
  afterEach(async () => {
    servers.splice(0).forEach((s) => s.close());
    await rm(dir, { recursive: true, force: true });
  });

  it('retries until the handler socket appears, then delivers in order', async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-notify-'));
    const path = join(dir, 'domain-notify-pipe.sock');
    const notifier = new Notifier(path, { totalMs: 10_000, intervalMs: 100 });
    const first = notifier.sendDomainEvent(event('Running'));
    const second = notifier.sendDomainEvent(event('Paused'));
    await new Promise((r) => setTimeout(r, 300));
    const server = new NotifyStandIn();
    servers.push(server);
    await server.listen(path);
    await Promise.all([first, second]);
    expect(server.events.map((e) => e.domain.Status.Status)).toEqual(['Running', 'Paused']);
    notifier.close();
  });

  it('gives up after its time budget with a typed error', async () => {
    dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-notify-'));
    const notifier = new Notifier(join(dir, 'absent.sock'), { totalMs: 500, intervalMs: 100 });
    await expect(notifier.sendDomainEvent(event('Running'))).rejects.toBeInstanceOf(NotifyError);
    notifier.close();
  });
});
