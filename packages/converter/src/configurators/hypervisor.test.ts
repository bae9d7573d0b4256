import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { hypervisor } from './hypervisor.js';

describe('hypervisor', () => {
  it('kvm with /dev/kvm (and when left out), qemu when emulating, error when neither', () => {
    expect(run(hypervisor, vmi()).type).toBe('kvm');
    expect(run(hypervisor, vmi(), { hypervisorDeviceAvailable: false, allowEmulation: true }).type).toBe('qemu');
    expect(() => run(hypervisor, vmi(), { hypervisorDeviceAvailable: false })).toThrow(
      'kvm not present and emulation is not allowed',
    );
  });
});
