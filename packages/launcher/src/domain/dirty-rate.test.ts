import { describe, expect, it } from 'vitest';
import { DirtyRateError, DirtyRateMeter } from './dirty-rate.js';
import type { DirtyRateConnection } from './dirty-rate.js';

/** A connection whose one domain reports `status` once a calculation was started (an extra fast layer; the
 * real measurement is in packages/libvirt/src/dirtyrate.stack.test.ts and hooks.stack.test.ts). */
function fakeConn(opts: { status?: number; rate?: number; startFails?: boolean } = {}) {
  const calls: string[] = [];
  let started = false;
  const dom = {
    name: 'default_vm',
    startDirtyRateCalc: async (seconds: number, mode: string) => {
      calls.push(`start ${seconds} ${mode}`);
      if (opts.startFails) throw new Error('boom');
      started = true;
    },
  };
  const conn = {
    listAllDomains: async () => [dom],
    getAllDomainStats: async (o: { types?: number; flags?: number }) => {
      calls.push(`stats ${o.types} ${o.flags}`);
      const stats: Record<string, number> = { 'dirtyrate.calc_status': started ? (opts.status ?? 2) : 0 };
      if (opts.rate !== undefined) stats['dirtyrate.megabytes_per_second'] = opts.rate;
      return [{ name: 'default_vm', uuid: 'u', stats }];
    },
  } as unknown as DirtyRateConnection;
  return { conn, calls };
}

const fast = { calcSeconds: 1, calcWaitMs: 0, pollMs: 10, pollTotalMs: 100 };

describe('DirtyRateMeter', () => {
  it('starts a 1 s page-sampling calculation and reads the dirtyrate group of running or paused domains', async () => {
    const { conn, calls } = fakeConn({ rate: 17 });
    const meter = new DirtyRateMeter(() => conn, 'default_vm', fast);
    expect(await meter.megabytesPerSecond()).toBe(17);
    expect(calls).toEqual(['start 1 page-sampling', 'stats 512 48']);
  });

  it('reuses a measurement within its cache time, and shares one in flight', async () => {
    const { conn, calls } = fakeConn({ rate: 3 });
    const meter = new DirtyRateMeter(() => conn, 'default_vm', { ...fast, cacheMs: 60_000 });
    const [a, b] = await Promise.all([meter.megabytesPerSecond(), meter.megabytesPerSecond()]);
    expect([a, b, await meter.megabytesPerSecond()]).toEqual([3, 3, 3]);
    expect(calls.filter((c) => c.startsWith('start'))).toHaveLength(1);
  });

  it("names an unfinished calculation with KubeVirt's status text", async () => {
    const { conn } = fakeConn({ status: 1, rate: 3 });
    const err = await new DirtyRateMeter(() => conn, 'default_vm', fast).megabytesPerSecond().catch((e) => e);
    expect(err).toBeInstanceOf(DirtyRateError);
    expect((err as Error).message).toBe(
      'failed to get domain dirty rate stats: failed to get dirty rate stats: dirty calc status is DOMAIN_DIRTYRATE_MEASURING',
    );
  });

  it('a calculation that could not start reports the status it left (unstarted)', async () => {
    const { conn } = fakeConn({ startFails: true, rate: 3 });
    const err = await new DirtyRateMeter(() => conn, 'default_vm', fast).megabytesPerSecond().catch((e) => e);
    expect((err as Error).message).toMatch(/DOMAIN_DIRTYRATE_UNSTARTED$/);
  });

  it('a measured calculation without a rate is an error, not 0', async () => {
    const { conn } = fakeConn({});
    const err = await new DirtyRateMeter(() => conn, 'default_vm', fast).megabytesPerSecond().catch((e) => e);
    expect((err as Error).message).toMatch(/MegabytesPerSecondSet is false$/);
  });

  it('no domain of that name: a typed error', async () => {
    const { conn } = fakeConn({ rate: 1 });
    const err = await new DirtyRateMeter(() => conn, 'other_vm', fast).megabytesPerSecond().catch((e) => e);
    expect(err).toBeInstanceOf(DirtyRateError);
  });
});
