import { describe, expect, it } from 'vitest';
import { describeProcesses, kibField, KUBEVIRT_OVERHEAD_TOTAL_MIB, procMemKiB, sumMem } from './proc-memory.js';

describe('proc-memory', () => {
  it('reads a kB field of smaps_rollup text, 0 when absent', () => {
    const text = 'Rss:               46800 kB\nPss:               11059 kB\nPrivate_Dirty:      9100 kB\n';
    expect(kibField(text, 'Rss')).toBe(46800);
    expect(kibField(text, 'Private_Dirty')).toBe(9100);
    expect(kibField(text, 'Anonymous')).toBe(0);
  });

  it("this process's private and anonymous memory are part of its RSS", async () => {
    const mem = await procMemKiB(process.pid);
    expect(mem.rss).toBeGreaterThan(0);
    expect(mem.priv).toBeGreaterThan(0);
    expect(mem.priv).toBeLessThanOrEqual(mem.rss);
    expect(mem.anon).toBeLessThanOrEqual(mem.rss);
    expect(mem.pss).toBeLessThanOrEqual(mem.rss);
  });

  it('sums rows and describes them in MiB; KubeVirt budgets 190 MiB per pod for these processes', () => {
    const rows = [
      { who: 'a', mem: { rss: 2048, pss: 1024, priv: 512, anon: 256 } },
      { who: 'b', mem: { rss: 1024, pss: 1024, priv: 1024, anon: 1024 } },
    ];
    expect(sumMem(rows)).toEqual({ rss: 3072, pss: 2048, priv: 1536, anon: 1280 });
    expect(describeProcesses(rows)).toBe('a 2.0/1.0/0.5/0.3, b 1.0/1.0/1.0/1.0');
    expect(KUBEVIRT_OVERHEAD_TOTAL_MIB).toBe(190);
  });
});
