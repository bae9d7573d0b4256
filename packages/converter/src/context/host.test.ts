import { describe, expect, it } from 'vitest';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { withDefaults } from './host.js';

const machine = ConverterContext.fromPartial({ architecture: 'amd64', hostArchitecture: 'amd64' });

describe('withDefaults: the host architecture', () => {
  it("is the machine's when the context names none", () => {
    expect(withDefaults(ConverterContext.fromPartial({}), machine).hostArchitecture).toBe('amd64');
  });

  it("is the context's architecture when it names one without cross-architecture emulation", () => {
    const ctx = ConverterContext.fromPartial({ architecture: 's390x' });
    expect(withDefaults(ctx, machine).hostArchitecture).toBe('s390x');
  });

  it("stays the machine's under cross-architecture emulation, and a stated host wins", () => {
    const emulated = ConverterContext.fromPartial({ architecture: 'arm64', allowCrossArchEmulation: true });
    expect(withDefaults(emulated, machine).hostArchitecture).toBe('amd64');
    const stated = ConverterContext.fromPartial({ architecture: 'arm64', hostArchitecture: 'arm64' });
    expect(withDefaults(stated, machine).hostArchitecture).toBe('arm64');
  });
});
