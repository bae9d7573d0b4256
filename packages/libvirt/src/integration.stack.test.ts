// Integration tests against a real libvirtd (private root) running a tiny TCG guest: live events,
// device hot-plug events, and the daemon dying under an open connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { LibvirtError, connect } from './index.js';
import type { Connection, DeviceEvent, Domain } from './index.js';
import { startPrivateDaemon } from './private-daemon.js';
import type { PrivateDaemon } from './private-daemon.js';
import { nextEvent, tcgDomainXml, uniqueName } from './test-helpers.js';

function waitFor<T>(conn: Connection, event: 'deviceRemoved' | 'reboot', name: string, ms = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} event for ${name}`)), ms);
    const listener = (e: { name: string }): void => {
      if (e.name !== name) return;
      clearTimeout(timer);
      conn.off(event, listener);
      resolve(e as T);
    };
    conn.on(event, listener);
  });
}

const usbInput = (type: 'tablet' | 'keyboard', alias: string): string =>
  `<input type='${type}' bus='usb'><alias name='${alias}'/></input>`;

describe('against a real libvirtd', () => {
  let daemon: PrivateDaemon;
  let conn: Connection;

  beforeAll(async () => {
    daemon = await startPrivateDaemon('vlt-libvirt');
    conn = await connect(daemon.uri);
  }, 120_000);

  afterAll(async () => {
    await conn?.close().catch(() => undefined);
    await daemon?.stop();
  }, 60_000);

  it('reports the real library and QEMU versions', async () => {
    expect(await conn.getLibVersion()).toBe('9.0.0');
    expect(await conn.getHypervisorVersion()).toMatch(/^7\.2\.\d+$/);
    expect(await conn.getCapabilities()).toContain('<arch>x86_64</arch>');
  });

  describe('a TCG guest', () => {
    const name = uniqueName('vlt-tcg');
    let dom: Domain;

    beforeAll(async () => {
      dom = await conn.defineXML(tcgDomainXml(name, usbInput('tablet', 'ua-tablet0')));
    });
    afterAll(async () => {
      await dom.destroy().catch(() => undefined);
      await dom.undefine().catch(() => undefined);
    });

    // Started once, by whichever test needs a running guest first, so each test also passes when run alone (-t).
    let booted: Promise<unknown> | undefined;
    const running = (): Promise<unknown> =>
      (booted ??= (async () => {
        const started = nextEvent(conn, name, 'started');
        await dom.create();
        return started;
      })());

    it('emits Started, Suspended, Resumed and Stopped live', async () => {
      expect(await running()).toMatchObject({ detail: 'booted', uuid: dom.uuid });
      expect(await dom.getState()).toMatchObject({ state: 'running', reason: 'booted' });

      const suspended = nextEvent(conn, name, 'suspended');
      await dom.suspend();
      expect((await suspended).detail).toBe('paused');
      expect(await dom.getState()).toMatchObject({ state: 'paused', reason: 'user' });

      const resumed = nextEvent(conn, name, 'resumed');
      await dom.resume();
      expect((await resumed).detail).toBe('unpaused');
    });

    it('reports stats of the running guest', async () => {
      await running();
      const stats = await dom.getStats();
      expect(stats.stats['state.state']).toBe(1);
      expect(stats.stats['balloon.maximum']).toBe(65536);
      const info = await dom.getInfo();
      expect(info).toMatchObject({ state: 'running', maxMemKiB: 65536, nrVirtCpu: 1 });
      expect(info.cpuTimeNs).toBeGreaterThan(0);
    });

    it('emits reboot on reset', async () => {
      await running();
      const reboot = waitFor(conn, 'reboot', name);
      await dom.reset();
      expect(await reboot).toMatchObject({ name, uuid: dom.uuid });
    });

    it('hot-plugs a USB keyboard and emits deviceRemoved when it is unplugged', async () => {
      await running();
      // USB unplug needs no guest cooperation, so it completes with only SeaBIOS running.
      await dom.attachDevice(usbInput('keyboard', 'ua-kbd1'), { live: true });
      expect(await dom.getXMLDesc()).toContain("alias name='ua-kbd1'");
      const removed = waitFor<DeviceEvent>(conn, 'deviceRemoved', name);
      await dom.detachDevice(usbInput('keyboard', 'ua-kbd1'), { live: true });
      expect((await removed).alias).toBe('ua-kbd1');
      expect(await dom.getXMLDesc()).not.toContain("alias name='ua-kbd1'");
    });

    it('rejects a guest-agent command with a LibvirtError when the guest has no agent', async () => {
      await running();
      const err = await dom.qemuAgentCommand({ execute: 'guest-ping' }, 1).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LibvirtError);
      expect((err as LibvirtError).codeName).toMatch(/AGENT|ARGUMENT_UNSUPPORTED|OPERATION/);
    });

    it('passes the shutdown mode: ACPI is accepted, agent is refused without an agent channel', async () => {
      await running();
      // SeaBIOS ignores the power button, so the guest keeps running and later tests still see it live.
      await dom.shutdown({ mode: 'acpi' });
      const err = await dom.shutdown({ mode: 'agent' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LibvirtError);
      expect((err as LibvirtError).message).toMatch(/agent/i);
      expect((await dom.getState()).state).toBe('running');
    });

    it('emits Stopped/destroyed on destroy', async () => {
      await running();
      const stopped = nextEvent(conn, name, 'stopped');
      await dom.destroy();
      expect((await stopped).detail).toBe('destroyed');
      expect(await dom.getState()).toMatchObject({ state: 'shutoff', reason: 'destroyed' });
    });
  });

  it('detects a hung daemon by keepalive: close with reason keepalive', async () => {
    const probe = await connect(daemon.uri, { keepAliveInterval: 1, keepAliveCount: 1 });
    const pid = await daemon.pid();
    try {
      const closed = new Promise<string>((resolve) => probe.once('close', resolve));
      process.kill(pid, 'SIGSTOP');
      expect(await closed).toBe('keepalive');
      expect(probe.lost).toBe('keepalive');
    } finally {
      process.kill(pid, 'SIGCONT');
      await probe.close();
    }
    // The main connection (5 s x 3 keepalive) outlived the pause.
    expect(await conn.isAlive()).toBe(true);
    expect(await conn.getHostname()).toBeTruthy();
  });

  it('emits close when the daemon dies, and later calls reject with LibvirtError', async () => {
    const closed = new Promise<string>((resolve) => conn.once('close', resolve));
    process.kill(await daemon.pid(), 'SIGKILL');
    expect(['eof', 'error', 'keepalive']).toContain(await closed);
    expect(conn.lost).toBeDefined();
    expect(await conn.isAlive()).toBe(false);
    const err = await conn.lookupDomainByName('anything').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).toBeGreaterThan(0);
  });
});
