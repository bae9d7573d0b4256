import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { memoryBacking } from './memory-backing.js';

describe('memory backing', () => {
  it('hugepages + memfd; no memfd when annotated off or on s390x; virtiofs shares memory', () => {
    const huge = vmi({ memory: { hugepages: { pageSize: '2Mi' } } });
    expect(run(memoryBacking, huge).memoryBacking).toEqual({
      hugepages: true,
      sourceMemfd: true,
      accessShared: undefined,
    });
    expect(run(memoryBacking, huge, { architecture: 's390x' }).memoryBacking?.sourceMemfd).toBeUndefined();
    huge.metadata.annotations = { 'kubevirt.io/memfd': 'false' };
    expect(run(memoryBacking, huge).memoryBacking?.sourceMemfd).toBeUndefined();
    expect(run(memoryBacking, vmi({ devices: { filesystems: [{ name: 'f', virtiofs: {} }] } })).memoryBacking).toEqual({
      hugepages: undefined,
      sourceMemfd: true,
      accessShared: true,
    });
    expect(run(memoryBacking, vmi()).memoryBacking).toBeUndefined();
  });
});
