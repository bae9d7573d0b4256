// serveNotify against the launcher's own notify client path (callUnary over one channel) on a real unix socket.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@grpc/grpc-js';
import { NotifyInfoService } from './gen/kubevirt/notify/info/info.js';
import { NotifyService } from './gen/kubevirt/notify/v1/notify.js';
import type { DomainEventRequest } from './gen/kubevirt/notify/v1/notify.js';
import { callUnary, openChannel } from './grpc/unary.js';
import { serveNotify } from './notify-server.js';
import type { NotifyEndpoint } from './notify-server.js';

let dir = '';
const open: Array<NotifyEndpoint | Client> = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    if ('forceClose' in o) o.forceClose();
    else o.close();
  }
  await rm(dir, { recursive: true, force: true });
});

async function start(handlers: Parameters<typeof serveNotify>[1]): Promise<Client> {
  dir = await mkdtemp(join(tmpdir(), 'vlt-launcher-notify-server-'));
  // A nested path that does not exist yet: the server makes its directory.
  const endpoint = await serveNotify(join(dir, 'sockets', 'domain-notify-pipe.sock'), handlers);
  open.push(endpoint);
  const channel = openChannel(endpoint.socketPath);
  open.push(channel);
  return channel;
}

const event: DomainEventRequest = {
  domainJSON: Buffer.from('{"a":1}'),
  statusJSON: Buffer.alloc(0),
  eventType: 'ADDED',
};

describe('serveNotify', () => {
  it('answers the NotifyInfo handshake and hands domain and K8s events to the handlers', async () => {
    const seen: string[] = [];
    const channel = await start({
      domainEvent: (req) => void seen.push(`domain ${req.eventType} ${req.domainJSON.toString()}`),
      k8sEvent: (req) => void seen.push(`k8s ${req.eventJSON.toString()}`),
    });
    expect(await callUnary(channel, NotifyInfoService.info, {}, 2000)).toEqual({ supportedNotifyVersions: [1] });
    expect(await callUnary(channel, NotifyService.handleDomainEvent, event, 2000)).toEqual({
      success: true,
      message: '',
    });
    const k8s = { eventJSON: Buffer.from('{"reason":"Started"}') };
    expect(await callUnary(channel, NotifyService.handleK8SEvent, k8s, 2000)).toEqual({ success: true, message: '' });
    expect(seen).toEqual(['domain ADDED {"a":1}', 'k8s {"reason":"Started"}']);
  });

  it('answers success:false with the message of a handler that throws', async () => {
    const channel = await start({
      domainEvent: () => Promise.reject(new Error('handler is busy')),
    });
    expect(await callUnary(channel, NotifyService.handleDomainEvent, event, 2000)).toEqual({
      success: false,
      message: 'handler is busy',
    });
  });
});
