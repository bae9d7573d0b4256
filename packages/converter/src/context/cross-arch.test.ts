import { describe, expect, it } from 'vitest';
import { ConversionError } from '../errors.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { vmi } from '../testing/fixture.js';
import { resolveContext } from './resolve.js';

const context = (partial: Partial<ConverterContext>) => ConverterContext.fromPartial(partial);

describe('cross-architecture emulation in the resolved context', () => {
  it('builds a foreign VMI for its own architecture when the switch is on', () => {
    const ctx = resolveContext(
      context({ architecture: 'amd64', hostArchitecture: 'amd64', allowCrossArchEmulation: true }),
      vmi({}, { architecture: 'arm64' }),
    );
    expect(ctx.arch.libvirtArch).toBe('aarch64');
    expect(ctx.crossArch).toEqual({ arch: 'arm64', emulator: '/usr/bin/qemu-system-aarch64' });
  });

  it('refuses a foreign VMI without the switch, naming spec.architecture, the host and the feature gate', () => {
    let caught: unknown;
    try {
      resolveContext(context({ hostArchitecture: 'amd64' }), vmi({}, { architecture: 's390x' }));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConversionError);
    expect((caught as ConversionError).field).toBe('spec.architecture');
    expect((caught as ConversionError).value).toBe('s390x');
    expect((caught as ConversionError).message).toMatch(/"amd64".*CrossArchitectureVirtualization/);
  });

  it('refuses a foreign architecture QEMU has no emulator named for (a VMI that skipped parseVmi)', () => {
    expect(() =>
      resolveContext(
        context({ hostArchitecture: 'amd64', allowCrossArchEmulation: true }),
        vmi({}, { architecture: 'riscv64' }),
      ),
    ).toThrow(/spec\.architecture: unsupported guest architecture for cross-architecture emulation: "riscv64"/);
  });

  it('checks nothing when the host or the VMI leaves its architecture out, as KubeVirt', () => {
    expect(resolveContext(context({}), vmi({}, { architecture: 'arm64' })).crossArch).toBeUndefined();
    expect(resolveContext(context({ hostArchitecture: 'arm64' }), vmi()).crossArch).toBeUndefined();
    const native = resolveContext(
      context({ hostArchitecture: 'arm64', architecture: 'arm64' }),
      vmi({}, { architecture: 'arm64' }),
    );
    expect(native.crossArch).toBeUndefined();
    expect(native.arch.arch).toBe('arm64');
  });
});
