// Kill and Delete racing each other (the handler may send both while a pod goes away) must both succeed, as
// KubeVirt's manager treats "domain not found" / "not running" / "already undefined" as done. Real libvirt
// (the library's test driver, in process) and the real DomainManager: every race below runs through libvirt's
// own locking, and a domain that vanishes between lookup, state and destroy/undefine is part of the race.
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLibvirt } from '../adapters/libvirt.js';
import type { Connection } from '../adapters/libvirt.js';
import { request, vmiJson } from '../testing/handler-standin.js';
import { testSyncEnv } from '../testing/sync-env.js';
import { DomainManager } from './manager.js';

let conn: Connection;
let manager: DomainManager;

const xml = (name: string) =>
  `<domain type='test'><name>${name}</name><memory unit='KiB'>65536</memory><vcpu>1</vcpu><os><type>hvm</type></os></domain>`;

beforeAll(async () => {
  conn = await connectLibvirt('test:///default');
  // Kill and Delete use only the connection and the metadata: no flags, paths or network are involved.
  manager = new DomainManager('', testSyncEnv(conn, tmpdir()));
});

afterAll(async () => {
  await conn.close();
});

describe('Kill and Delete are idempotent under races', () => {
  it.each(Array.from({ length: 12 }, (_, i) => i))(
    'round %i: Kill, Delete, Kill, Delete at once all succeed',
    async (i) => {
      const name = `race${i}`;
      const dom = await conn.defineXML(xml(`default_${name}`));
      await dom.create();
      const req = request(vmiJson(name));
      // Orders differ per round so both "delete first" and "kill first" interleavings happen.
      const ops =
        i % 2 === 0
          ? [manager.kill(`default_${name}`), manager.delete(req), manager.kill(`default_${name}`), manager.delete(req)]
          : [
              manager.delete(req),
              manager.kill(`default_${name}`),
              manager.delete(req),
              manager.kill(`default_${name}`),
            ];
      const results = await Promise.allSettled(ops);
      expect(
        results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
      ).toEqual([]);
      // Both asked for: stopped and undefined, so the domain is gone.
      const left = (await conn.listAllDomains()).map((d) => d.name);
      expect(left).not.toContain(`default_${name}`);
    },
  );

  it('a Kill of a domain that is already dead and a Delete of one already undefined succeed', async () => {
    const dom = await conn.defineXML(xml('default_gone'));
    await dom.create();
    await dom.destroy();
    await expect(manager.kill('default_gone')).resolves.toBeUndefined();
    await expect(manager.delete(request(vmiJson('gone')))).resolves.toBeUndefined();
    await expect(manager.delete(request(vmiJson('gone')))).resolves.toBeUndefined();
    await expect(manager.kill('default_gone')).resolves.toBeUndefined();
  });
});
