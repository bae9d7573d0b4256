// DomainManager against the in-memory connection: the decisions it makes from the domain's state, and which
// libvirt errors it treats as "already done". The same operations run against libvirt in the stack tests.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorMessage, isNoDomain } from '../errors.js';
import { FakeConnection } from '../testing/fake-connection.js';
import { request, vmiJson } from '../testing/handler-standin.js';
import { testSyncEnv, type TestSyncEnv } from '../testing/sync-env.js';
import { DomainManager, DomainNotFoundError } from './manager.js';
import { STATE } from './state.js';

const xml = (name: string) => `<domain type='qemu'><name>${name}</name></domain>`;
const req = (name: string) => request(vmiJson(name));

let root: string;
let conn: FakeConnection;
let env: TestSyncEnv;
let manager: DomainManager;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vlt-launcher-manager-'));
  conn = await FakeConnection.open();
  env = testSyncEnv(conn, root);
  manager = new DomainManager('default_a', env);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function running(name: string) {
  const dom = await conn.defineXML(xml(`default_${name}`));
  await dom.create();
  return dom;
}

describe('pause and unpause', () => {
  it('suspends a running domain and resumes it', async () => {
    const dom = await running('a');
    await manager.pause(req('a'));
    expect(dom.stateCode).toBe(STATE.paused);
    await manager.unpause(req('a'));
    expect(dom.stateCode).toBe(STATE.running);
    expect(dom.calls.filter((c) => c === 'suspend' || c === 'resume')).toEqual(['suspend', 'resume']);
  });

  it('leaves a domain that is not running (pause) or not paused (unpause) alone', async () => {
    const dom = await conn.defineXML(xml('default_a'));
    await manager.pause(req('a'));
    await running('b');
    await manager.unpause(req('b'));
    expect(dom.calls).not.toContain('suspend');
    expect(conn.domain('default_b')?.calls).not.toContain('resume');
  });

  it('answers DomainNotFoundError when there is no domain', async () => {
    await expect(manager.pause(req('a'))).rejects.toBeInstanceOf(DomainNotFoundError);
    await expect(manager.unpause(req('a'))).rejects.toBeInstanceOf(DomainNotFoundError);
  });

  it('passes on a libvirt error of the lookup other than NO_DOMAIN', async () => {
    await running('a');
    conn.failNext('lookupDomainByName', 'INTERNAL_ERROR');
    const err = await manager.pause(req('a')).catch((e: unknown) => e);
    expect(errorMessage(err)).toMatch(/^LibvirtError\(Code=1, Domain=6, Message='injected failure/);
  });
});

describe('kill', () => {
  it('destroys a running or paused domain, and is a no-op on one that is off', async () => {
    const a = await running('a');
    await manager.kill('default_a');
    expect(a.stateCode).toBe(STATE.shutoff);
    await manager.kill('default_a');
    expect(a.calls.filter((c) => c === 'destroy')).toHaveLength(1);
    const b = await running('b');
    await b.suspend();
    await manager.kill('default_b');
    expect(b.stateCode).toBe(STATE.shutoff);
  });

  it('succeeds when the domain is gone (NO_DOMAIN) or stopped under it (OPERATION_INVALID)', async () => {
    await manager.kill('default_missing');
    const a = await running('a');
    conn.failNext('destroy', 'OPERATION_INVALID');
    await manager.kill('default_a');
    expect(a.calls).toContain('destroy');
  });

  it('fails on any other libvirt error', async () => {
    await running('a');
    conn.failNext('destroy', 'INTERNAL_ERROR');
    await expect(manager.kill('default_a')).rejects.toMatchObject({ name: 'LibvirtError', codeName: 'INTERNAL_ERROR' });
  });
});

describe('delete', () => {
  it('undefines keeping NVRAM, and is idempotent', async () => {
    const a = await conn.defineXML(xml('default_a'));
    await manager.delete(req('a'));
    await manager.delete(req('a'));
    expect(conn.domain('default_a')).toBeUndefined();
    expect(a.undefineOptions).toEqual([{ keepNvram: true }]);
  });

  it('undefines without the NVRAM flag where the driver rejects it (INVALID_ARG)', async () => {
    conn.nvramUnsupported = true;
    const a = await conn.defineXML(xml('default_a'));
    await manager.delete(req('a'));
    expect(a.undefineOptions).toEqual([{ keepNvram: true }, undefined]);
    expect(conn.domain('default_a')).toBeUndefined();
  });

  it('fails on another libvirt error and keeps the domain', async () => {
    await conn.defineXML(xml('default_a'));
    conn.failNext('undefine', 'INTERNAL_ERROR');
    await expect(manager.delete(req('a'))).rejects.toMatchObject({ codeName: 'INTERNAL_ERROR' });
    expect(conn.domain('default_a')).toBeDefined();
  });

  it('Kill and Delete issued together both succeed whichever lands first', async () => {
    await running('a');
    await Promise.all([manager.delete(req('a')), manager.kill('default_a'), manager.delete(req('a'))]);
    expect(conn.domain('default_a')).toBeUndefined();
  });
});

describe('shutdown, reset and reads', () => {
  it('shutdown presses the power button of a running domain and records the deletion time once', async () => {
    const a = await running('a');
    await manager.shutdown(req('a'));
    const first = env.metadata.get().GracePeriod;
    await manager.shutdown(req('a'));
    expect(a.calls.filter((c) => c === 'shutdown')).toHaveLength(2);
    expect(first).toMatchObject({ DeletionGracePeriodSeconds: 5 });
    expect(env.metadata.get().GracePeriod?.DeletionTimestamp).toBe(first?.DeletionTimestamp);
  });

  it('shutdown of a missing or stopped domain does nothing', async () => {
    await manager.shutdown(req('a'));
    const b = await conn.defineXML(xml('default_b'));
    await manager.shutdown(req('b'));
    expect(b.calls).not.toContain('shutdown');
    expect(env.metadata.get().GracePeriod).toBeUndefined();
  });

  it("reset of a missing domain answers the lookup's NO_DOMAIN error", async () => {
    const err = await manager.reset(req('a')).catch((e: unknown) => e);
    expect(isNoDomain(err)).toBe(true);
    expect(errorMessage(err)).toMatch(/^LibvirtError\(Code=42, Domain=6, /);
  });

  it('GetDomain is "" without a domain, else the named domain with its state', async () => {
    expect(await manager.getDomainJson()).toBe('');
    await running('other');
    await running('a');
    const json = JSON.parse(await manager.getDomainJson()) as {
      ObjectMeta: { name: string };
      Status: { Status: string };
    };
    expect(json.ObjectMeta.name).toBe('a');
    expect(json.Status.Status).toBe('Running');
  });

  it('refuses Sync after close', async () => {
    await manager.close('SIGTERM');
    await expect(manager.sync(req('a'))).rejects.toMatchObject({ name: 'ShuttingDownError' });
    expect(conn.calls).toEqual([]);
  });
});
