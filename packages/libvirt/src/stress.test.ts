// Stress: 10,000 define/lookup/undefine cycles from many concurrent promises against test:///default.
// Leaks are checked by the binding's own live-handle counters (exact). RSS growth under the same churn is a
// measurement, not a pass/fail fact: the libvirt benchmark suite reports it (tools/bench/suites/libvirt.ts).
import { dirname, join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ErrorCode, connect, handleCounts } from './index.js';
import type { Connection } from './index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function collect(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    gc();
    await tick();
  }
}

interface ChildReport {
  left: number;
  countsOpen: { domainRefs: number; domainObjects: number; connections: number };
  countsClosed: { domainRefs: number; domainObjects: number; connections: number };
}

describe('stress on test:///default', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await connect('test:///default');
  });
  afterAll(async () => {
    await conn.close();
  });

  it('runs 10,000 define/lookup/undefine cycles (after 5,000 warm-up) from 32 lanes: no domain or handle left', async () => {
    const child = join(dirname(fileURLToPath(import.meta.url)), 'stress-child.ts');
    const { stdout } = await execa('node', ['--expose-gc', '--import', 'tsx', child, '5000', '10000', '32'], {
      env: { MALLOC_ARENA_MAX: '1' },
    });
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ChildReport;
    expect(report.left).toBe(0);
    expect(report.countsOpen).toEqual({ domainRefs: 0, domainObjects: 0, connections: 1 });
    expect(report.countsClosed).toEqual({ domainRefs: 0, domainObjects: 0, connections: 0 });
  }, 300_000);

  it('frees every domain handle: counters return to their baseline after GC', async () => {
    await collect();
    const base = handleCounts();
    const held = await Promise.all(Array.from({ length: 500 }, () => conn.lookupDomainByName('test')));
    expect(handleCounts().domainObjects).toBe(base.domainObjects + 500);
    held.length = 0;
    await collect();
    expect(handleCounts()).toEqual(base);
  });

  it('answers 2,000 concurrent calls on one domain, and errors concurrently with successes', async () => {
    const test = await conn.lookupDomainByName('test');
    const calls = Array.from({ length: 2_000 }, (_, i) =>
      i % 2 === 0 ? test.getState().then((s) => s.state) : conn.lookupDomainByName(`missing-${i}`).then(() => 'found'),
    );
    const results = await Promise.allSettled(calls);
    const states = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
    const errors = results.filter((r) => r.status === 'rejected').map((r) => (r.reason as { code: number }).code);
    expect(states).toHaveLength(1_000);
    expect(new Set(states)).toEqual(new Set(['running']));
    expect(errors).toHaveLength(1_000);
    expect(new Set(errors)).toEqual(new Set([ErrorCode.NO_DOMAIN]));
  });

  it('survives close() while calls are in flight: each call settles, none crashes', async () => {
    const other = await connect('test:///default');
    const test = await other.lookupDomainByName('test');
    const inflight = Array.from({ length: 200 }, () => test.getInfo());
    await other.close();
    const results = await Promise.allSettled(inflight);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as Error).name).toBe('LibvirtError');
    }
    await expect(test.getInfo()).rejects.toMatchObject({ code: ErrorCode.INVALID_DOMAIN });
  });

  it('opens and closes 200 connections without leaking them', async () => {
    for (let i = 0; i < 200; i++) {
      const c = await connect('test:///default');
      await c.lookupDomainByName('test');
      await c.close();
    }
    await collect();
    // Only the suite's own connection stays open.
    expect(handleCounts().connections).toBe(1);
  });
});
