import { describe, expect, it } from 'vitest';
import { parseRunArgs, UsageError } from './args.js';

describe('parseRunArgs', () => {
  it('reads the VMI file, container disks and switches', () => {
    const a = parseRunArgs([
      'run',
      'vmi.yaml',
      '--container-disk',
      'root=/a.img',
      '--container-disk=data=/b.img',
      '--until-lease',
      '--timeout',
      '30',
    ]);
    expect(a.vmiFile).toBe('vmi.yaml');
    expect([...a.containerDisks]).toEqual([
      ['root', '/a.img'],
      ['data', '/b.img'],
    ]);
    expect(a.untilLease).toBe(true);
    expect(a.console).toBe(false);
    expect(a.timeoutSeconds).toBe(30);
    expect(a.hypervisor).toBe('auto');
    expect(parseRunArgs(['run', 'v.yaml', '--hypervisor', 'emulation']).hypervisor).toBe('emulation');
    expect(parseRunArgs(['run', 'v.yaml', '--hypervisor=kvm']).hypervisor).toBe('kvm');
  });

  it.each([
    [['vmi.yaml'], /run VMI.yaml/],
    [['run'], /run VMI.yaml/],
    [['run', 'a', '--container-disk', 'noequals'], /VOLUME=IMAGE_FILE/],
    [['run', 'a', '--container-disk', 'x='], /VOLUME=IMAGE_FILE/],
    [['run', 'a', '--timeout', 'abc'], /--timeout abc: not a positive number/],
    [['run', 'a', '--bogus'], /bogus/],
    [['run', 'a', '--hypervisor', 'tcg'], /--hypervisor tcg: expected auto, kvm, emulation/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseRunArgs(argv)).toThrow(UsageError);
    expect(() => parseRunArgs(argv)).toThrow(message);
  });
});
