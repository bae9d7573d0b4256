// The migration calls against libvirt's test driver: typed errors for bad arguments and for a driver that cannot
// migrate, job statistics of an idle domain, and the migration thread settling its promise (no hang, no leak).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ErrorCode, JobType, LibvirtError, MigrateFlags, connect, handleCounts } from './index.js';
import type { Connection, Domain } from './index.js';

describe('migration calls on test:///default', () => {
  let conn: Connection;
  let dom: Domain;
  beforeAll(async () => {
    conn = await connect('test:///default');
    dom = await conn.lookupDomainByName('test');
  });
  afterAll(async () => {
    await conn.close();
  });

  it('rejects a parameter of the wrong type with INVALID_ARG naming the field', async () => {
    const bad = dom.migrateToURI3('test:///default', { bandwidthMiB: 'fast' as unknown as number }, MigrateFlags.LIVE);
    await expect(bad).rejects.toMatchObject({ code: ErrorCode.INVALID_ARG, message: /params\.bandwidthMiB/ });
    const disks = dom.migrateToURI3('test:///default', { migrateDisks: ['vda', 7 as unknown as string] }, 0);
    await expect(disks).rejects.toMatchObject({ code: ErrorCode.INVALID_ARG, message: /migrateDisks\[1\]/ });
    await expect(dom.migrateToURI3('', {}, 0)).rejects.toBeInstanceOf(LibvirtError);
  });

  it('settles a migration the driver refuses with a LibvirtError from the migration thread', async () => {
    const before = handleCounts().domainRefs;
    const err = await dom
      .migrateToURI3(
        'qemu+unix:///system?socket=/nonexistent/vlt-migration-test.sock',
        { uri: 'unix:///nonexistent/vlt-migration-test-49152.sock', bandwidthMiB: 16, migrateDisks: ['vda'] },
        MigrateFlags.LIVE | MigrateFlags.PEER2PEER,
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibvirtError);
    expect((err as LibvirtError).code).not.toBe(ErrorCode.OK);
    // The thread dropped the reference it took for the call.
    expect(handleCounts().domainRefs).toBe(before);
  });

  it('reports no job on an idle domain, or a typed NO_SUPPORT where the driver has no job statistics', async () => {
    const stats = await dom.getJobStats().catch((e: unknown) => e);
    if (stats instanceof LibvirtError) expect(stats.code).toBe(ErrorCode.NO_SUPPORT);
    else expect(stats).toMatchObject({ type: JobType.NONE });
  });

  it('rejects abort without a job and bad downtime values with typed errors', async () => {
    await expect(dom.abortJob()).rejects.toBeInstanceOf(LibvirtError);
    await expect(dom.migrateSetMaxDowntime(-1)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARG });
    await expect(dom.migrateSetMaxSpeed(1.5)).rejects.toMatchObject({ code: ErrorCode.INVALID_ARG });
  });
});
