import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConversionError } from '../errors.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { run, vmi } from '../testing/fixture.js';
import type { Disk } from '../vmi/types.js';
import { parseVmi } from '../vmi/parse.js';
import { toDomainXml } from '../xml/domain-xml.js';
import { disks } from './disks.js';

const pvc = { name: 'd', persistentVolumeClaim: { claimName: 'c' } };
const measured = { d: { logical: 4096, physical: 4096, discardGranularity: 4096 } };

function blockio(disk: Omit<Disk, 'name'>, ctx: Partial<ConverterContext> = {}) {
  return run(
    disks,
    vmi({ devices: { disks: [{ name: 'd', disk: { bus: 'virtio' }, ...disk }] } }, { volumes: [pvc] }),
    ctx,
  ).devices.disks[0]?.blockio;
}

function refusal(disk: Omit<Disk, 'name'>, ctx: Partial<ConverterContext> = {}): ConversionError {
  try {
    blockio(disk, ctx);
  } catch (e) {
    if (e instanceof ConversionError) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('blockSize.matchVolume takes the sizes the launcher measured', () => {
  it('writes the measured logical and physical sizes and discard granularity into <blockio>', () => {
    const yaml = [
      'apiVersion: kubevirt.io/v1',
      'kind: VirtualMachineInstance',
      'metadata: {name: vm, namespace: ns}',
      'spec:',
      '  domain:',
      '    resources: {requests: {memory: 64Mi}}',
      '    devices: {disks: [{name: d, disk: {bus: virtio}, blockSize: {matchVolume: {}}}]}',
      '  volumes: [{name: d, persistentVolumeClaim: {claimName: c}}]',
    ].join('\n');
    const sizes = { d: { logical: 512, physical: 4096, discardGranularity: 0 } };
    const xml = toDomainXml(convert(parseVmi(yaml), ConverterContext.fromPartial({ volumeBlockSizes: sizes })));
    expect(xml).toMatch(/<blockio logical_block_size="512" physical_block_size="4096" discard_granularity="0"\/>/);
  });

  it('a block device and a file are written alike, as measured', () => {
    expect(blockio({ blockSize: { matchVolume: { enabled: true } } }, { volumeBlockSizes: measured })).toEqual({
      logical: 4096,
      physical: 4096,
      discardGranularity: 4096,
    });
  });

  it('a discard granularity left out of the context is left out of <blockio>', () => {
    const sizes = { d: { logical: 512, physical: 4096 } };
    expect(blockio({ blockSize: { matchVolume: { enabled: true } } }, { volumeBlockSizes: sizes })).toEqual({
      logical: 512,
      physical: 4096,
      discardGranularity: undefined,
    });
  });

  it('a custom size wins over matchVolume, and matchVolume switched off asks for nothing', () => {
    const custom = { logical: 512, physical: 512 };
    expect(blockio({ blockSize: { custom, matchVolume: { enabled: true } } }, { volumeBlockSizes: measured })).toEqual({
      ...custom,
      discardGranularity: undefined,
    });
    expect(blockio({ blockSize: { matchVolume: { enabled: false } } })).toBeUndefined();
    expect(blockio({})).toBeUndefined();
  });

  it('on s390x a custom size above 4096 is refused, as KubeVirt does; 4096 is fine', () => {
    const big = { blockSize: { custom: { logical: 8192, physical: 8192 } } };
    const e = refusal(big, { architecture: 's390x' });
    expect(e.field).toBe('spec.domain.devices.disks[0].blockSize.custom');
    expect(e.message).toContain('4096 on s390x');
    expect(
      blockio({ blockSize: { custom: { logical: 4096, physical: 4096 } } }, { architecture: 's390x' })?.logical,
    ).toBe(4096);
    expect(blockio(big, { architecture: 'amd64' })?.logical).toBe(8192);
  });

  it('a volume the launcher did not measure is refused, naming the disk and the context field', () => {
    const e = refusal({ blockSize: { matchVolume: { enabled: true } } }, { volumeBlockSizes: { other: measured.d } });
    expect(e.field).toBe('spec.domain.devices.disks[0].blockSize.matchVolume');
    expect(e.value).toBe('d');
    expect(e.message).toContain('context.volumeBlockSizes');
    expect(e.message).toContain('blockSize.custom');
  });

  it('a measured size of zero is refused, never written', () => {
    const zero = { d: { logical: 0, physical: 4096, discardGranularity: 0 } };
    const e = refusal({ blockSize: { matchVolume: { enabled: true } } }, { volumeBlockSizes: zero });
    expect(e.message).toMatch(/zero size \(logical 0, physical 4096\)/);
  });

  it('an empty CD-ROM tray (no volume to measure) with matchVolume is refused', () => {
    const v = vmi({
      devices: { disks: [{ name: 'tray', cdrom: { bus: 'sata' }, blockSize: { matchVolume: { enabled: true } } }] },
    });
    expect(() => run(disks, v, { volumeBlockSizes: measured })).toThrow(/no measured block size for volume "tray"/);
  });
});
