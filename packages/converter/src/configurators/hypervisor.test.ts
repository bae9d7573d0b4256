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

  it('prefers kvm over emulation when both are possible, and never emulates only because the device is missing', () => {
    expect(run(hypervisor, vmi(), { hypervisorDeviceAvailable: true, allowEmulation: true }).type).toBe('kvm');
    expect(() => run(hypervisor, vmi(), { hypervisorDeviceAvailable: false, allowEmulation: false })).toThrow(
      /context\.allowEmulation: kvm not present and emulation is not allowed/,
    );
  });
});
