// Fast tests of the binding against libvirt's built-in test driver (test:///default).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ErrorCode, LibvirtError, connect } from './index.js';
import type { Connection } from './index.js';
import { nextEvent, testDomainXml, uniqueName } from './test-helpers.js';

describe('Connection on test:///default', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connect('test:///default');
  });
  afterAll(async () => {
    await conn.close();
  });

  it('reports versions, hostname and capabilities', async () => {
    expect(await conn.getLibVersion()).toMatch(/^9\.0\.\d+$/);
    expect(await conn.getHypervisorVersion()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await conn.getHostname()).length).toBeGreaterThan(0);
    expect(await conn.getCapabilities()).toContain('<capabilities>');
    expect(await conn.isAlive()).toBe(true);
  });

  it('lists the test driver domain with its state', async () => {
    const domains = await conn.listAllDomains();
    const test = domains.find((d) => d.name === 'test');
    expect(test).toBeDefined();
    expect(await test!.getUUID()).toMatch(/^[0-9a-f-]{36}$/);
    const state = await test!.getState();
    expect(state.state).toBe('running');
  });

  it('defines, looks up by name and UUID, and undefines a domain', async () => {
    const name = uniqueName('vlt-def');
    const defined = await conn.defineXML(testDomainXml(name));
    expect(defined.name).toBe(name);
    const byName = await conn.lookupDomainByName(name);
    const byUUID = await conn.lookupDomainByUUID(defined.uuid);
    expect(byName.uuid).toBe(defined.uuid);
    expect(byUUID.name).toBe(name);
    expect((await byName.getState()).state).toBe('shutoff');
    await byName.undefine();
    await expect(conn.lookupDomainByName(name)).rejects.toMatchObject({ code: ErrorCode.NO_DOMAIN });
  });

  it('rejects a missing domain with LibvirtError code 42 (NO_DOMAIN)', async () => {
    const err = await conn.lookupDomainByName(uniqueName('missing')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    const lv = err as LibvirtError;
    expect(lv.code).toBe(42);
    expect(lv.codeName).toBe('NO_DOMAIN');
    expect(lv.domain).toBeGreaterThan(0);
    expect(lv.message).toMatch(/not found/i);
    expect(lv.describe()).toMatch(/^LibvirtError\(Code=42, Domain=\d+, Message='.+'\)$/);
  });

  it('rejects bad XML with a libvirt XML error, not a crash', async () => {
    const err = await conn.defineXML('<domain').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).codeName).toMatch(/XML/);
  });

  it('delivers defined, started, suspended, resumed, stopped and undefined events in order', async () => {
    const name = uniqueName('vlt-ev');
    const seen: string[] = [];
    conn.on('domainEvent', (e) => {
      if (e.name === name) seen.push(`${e.event}/${e.detail}`);
    });
    const undefinedEvent = nextEvent(conn, name, 'undefined');
    const dom = await conn.defineXML(testDomainXml(name));
    await dom.create();
    await dom.suspend();
    expect((await dom.getState()).state).toBe('paused');
    await dom.resume();
    await dom.destroy();
    await dom.undefine();
    const last = await undefinedEvent;
    expect(last.uuid).toBe(dom.uuid);
    expect(seen).toEqual([
      'defined/added',
      'started/booted',
      'suspended/paused',
      'resumed/unpaused',
      'stopped/destroyed',
      'undefined/removed',
    ]);
  });

  it('maps state reasons to libvirt names', async () => {
    const name = uniqueName('vlt-state');
    const dom = await conn.defineXML(testDomainXml(name));
    await dom.create();
    expect(await dom.getState()).toMatchObject({ state: 'running', reason: 'booted', stateCode: 1, reasonCode: 1 });
    await dom.suspend();
    expect(await dom.getState()).toMatchObject({ state: 'paused', reason: 'user', stateCode: 3, reasonCode: 1 });
    await dom.destroy();
    expect(await dom.getState()).toMatchObject({ state: 'shutoff', reason: 'destroyed', stateCode: 5, reasonCode: 2 });
    await dom.undefine();
  });

  it('rejects an operation invalid for the state with OPERATION_INVALID', async () => {
    const name = uniqueName('vlt-inv');
    const dom = await conn.defineXML(testDomainXml(name));
    try {
      // Destroying a domain that is not running: libvirt's "domain is not running" check.
      await expect(dom.destroy()).rejects.toMatchObject({
        code: ErrorCode.OPERATION_INVALID,
        codeName: 'OPERATION_INVALID',
      });
      await expect(dom.attachDevice("<disk type='file'/>", { live: true })).rejects.toMatchObject({
        code: ErrorCode.NO_SUPPORT,
      });
    } finally {
      await dom.undefine();
    }
  });

  it('returns info, XML and bulk stats', async () => {
    const test = await conn.lookupDomainByName('test');
    const info = await test.getInfo();
    expect(info.state).toBe('running');
    expect(info.nrVirtCpu).toBeGreaterThan(0);
    expect(await test.getXMLDesc({ inactive: true })).toContain('<name>test</name>');
    const stats = await test.getStats();
    expect(stats.name).toBe('test');
    expect(stats.stats['state.state']).toBe(1);
    const all = await conn.getAllDomainStats();
    expect(all.map((s) => s.name)).toContain('test');
  });
});

describe('Connection lifetime', () => {
  it('rejects calls on a closed connection and on its domains with LibvirtError', async () => {
    const conn = await connect('test:///default');
    const dom = await conn.lookupDomainByName('test');
    await conn.close();
    await conn.close();
    expect(await conn.isAlive()).toBe(false);
    await expect(conn.getHostname()).rejects.toMatchObject({ name: 'LibvirtError', code: ErrorCode.INVALID_CONN });
    await expect(dom.getState()).rejects.toMatchObject({ name: 'LibvirtError', code: ErrorCode.INVALID_DOMAIN });
  });

  it('rejects flags the driver does not support with LibvirtError', async () => {
    const conn = await connect('test:///default');
    try {
      const name = uniqueName('vlt-flags');
      const dom = await conn.defineXML(testDomainXml(name));
      // The test driver has no NVRAM support, so the explicit flag is refused.
      await expect(dom.undefine({ keepNvram: false })).rejects.toMatchObject({ name: 'LibvirtError' });
      await dom.undefine();
    } finally {
      await conn.close();
    }
  });

  it('emits no event after close() resolves, even events already queued', async () => {
    const conn = await connect('test:///default');
    const dom = await conn.lookupDomainByName('test');
    let afterClose = 0;
    let closed = false;
    conn.on('domainEvent', () => {
      if (closed) afterClose++;
    });
    await dom.suspend();
    await dom.resume();
    await dom.suspend();
    await dom.resume();
    await conn.close();
    closed = true;
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(afterClose).toBe(0);
  });

  it('rejects a bad URI with LibvirtError', async () => {
    const err = await connect('nosuchdriver:///x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).toBeGreaterThan(0);
  });

  it('frees a domain handle explicitly', async () => {
    const conn = await connect('test:///default');
    try {
      const dom = await conn.lookupDomainByName('test');
      dom.free();
      dom.free();
      await expect(dom.getInfo()).rejects.toMatchObject({ code: ErrorCode.INVALID_DOMAIN });
    } finally {
      await conn.close();
    }
  });
});
