// Run by stress.test.ts in its own process (node --expose-gc, MALLOC_ARENA_MAX=1 so glibc's per-thread
// arenas do not blur RSS): warm-up cycles, then measured define/lookup/undefine cycles from concurrent
// lanes; prints one JSON line with RSS before/after and the native handle counts.
import { setImmediate as tick } from 'node:timers/promises';

import { connect, handleCounts } from './index.js';
import type { Connection } from './index.js';
import { testDomainXml, uniqueName } from './test-helpers.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

async function settledRss(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await tick();
  }
  return process.memoryUsage().rss;
}

export async function cycles(conn: Connection, prefix: string, count: number, lanes: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) {
      const name = `${prefix}-${next++}`;
      const defined = await conn.defineXML(testDomainXml(name));
      const found = await conn.lookupDomainByName(name);
      if (found.uuid !== defined.uuid) throw new Error(`lookup of ${name} returned another domain`);
      await found.undefine();
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

const [warm = 5_000, measured = 10_000, lanes = 32] = process.argv.slice(2).map(Number);
const conn = await connect('test:///default');
const prefix = uniqueName('vlt-stress');
await cycles(conn, `${prefix}-warm`, warm, lanes);
const before = await settledRss();
await cycles(conn, prefix, measured, lanes);
const after = await settledRss();
const left = (await conn.listAllDomains()).filter((d) => d.name.startsWith(prefix)).length;
await settledRss();
const countsOpen = handleCounts();
await conn.close();
await settledRss();
const countsClosed = handleCounts();
console.log(JSON.stringify({ warm, measured, lanes, before, after, left, countsOpen, countsClosed }));
