import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { cpu } from './cpu.js';

describe('cpu', () => {
  it('custom model with features; MPX disabled on amd64; 12 vCPUs', () => {
    const d = run(
      cpu,
      vmi({
        cpu: {
          cores: 3,
          sockets: 2,
          threads: 2,
          model: 'Conroe',
          features: [
            { name: 'lahf_lm', policy: 'require' },
            { name: 'mmx', policy: 'disable' },
          ],
        },
      }),
    );
    expect(d.cpu).toMatchObject({ mode: 'custom', model: 'Conroe', topology: { sockets: 2, cores: 3, threads: 2 } });
    expect(d.cpu?.features.map((f) => `${f.name}:${f.policy}`)).toEqual([
      'lahf_lm:require',
      'mmx:disable',
      'mpx:disable',
    ]);
    expect(d.vcpu).toBe(12);
  });
  it.each([
    ['requests', '2200m'],
    ['limits', '2.3'],
  ])('CPU %s %s round up to 3 sockets', (kind, value) => {
    const d = run(cpu, vmi({ resources: { [kind]: { cpu: value, memory: '1Gi' } } }));
    expect(d.cpu?.topology).toEqual({ sockets: 3, cores: 1, threads: 1 });
    expect(d.cpu?.mode).toBe('host-model');
  });
  it('hot-plug: maxSockets 3 with 2x2 -> 6 vCPUs listed, 4 enabled', () => {
    const d = run(cpu, vmi({ cpu: { cores: 2, sockets: 2, threads: 1, maxSockets: 3 } }));
    expect(d.vcpu).toBe(6);
    expect(d.vcpus.map((v) => v.hotpluggable)).toEqual(['no', 'no', 'yes', 'yes', 'yes', 'yes']);
    expect(d.vcpus.map((v) => v.enabled)).toEqual(['yes', 'yes', 'yes', 'yes', 'no', 'no']);
    expect(run(cpu, vmi({ cpu: { cores: 2, sockets: 2, maxSockets: 3 } }), { architecture: 'arm64' }).vcpus).toEqual(
      [],
    );
  });
  it('hugepages need memfd, and memfd a synthetic NUMA cell holding all vCPUs and memory', () => {
    const d = run(cpu, vmi({ cpu: { cores: 2 }, memory: { guest: '2Gi', hugepages: { pageSize: '2Mi' } } }));
    expect(d.cpu?.numaCells).toEqual([{ id: 0, cpus: '0-1', memoryKiB: 2097152n }]);
    expect(
      run(cpu, vmi({ memory: { guest: '2Gi', hugepages: { pageSize: '2Mi' } } }), { architecture: 's390x' }).cpu
        ?.numaCells,
    ).toEqual([]);
  });
});

describe('cpu under cross-architecture emulation', () => {
  const emulated = { allowCrossArchEmulation: true, architecture: 'arm64' };

  it.each([['host-model'], ['host-passthrough'], [undefined]])('model %s becomes custom "max"', (model) => {
    const d = run(cpu, vmi({ cpu: model ? { model } : undefined }), emulated);
    expect(d.cpu?.mode).toBe('custom');
    expect(d.cpu?.model).toBe('max');
  });

  it('keeps an explicitly named model, and native conversions keep host-model', () => {
    expect(run(cpu, vmi({ cpu: { model: 'cortex-a57' } }), emulated).cpu).toMatchObject({
      mode: 'custom',
      model: 'cortex-a57',
    });
    const native = run(cpu, vmi({ cpu: { model: 'host-model' } }), { architecture: 'arm64' }).cpu;
    expect(native?.mode).toBe('host-model');
    expect(native?.model).toBeUndefined();
  });
});
