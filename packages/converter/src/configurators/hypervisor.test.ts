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

describe('hypervisor under cross-architecture emulation', () => {
  const arm64 = vmi({}, { architecture: 'arm64' });

  it("runs a foreign guest under TCG on its architecture's QEMU, whatever KVM and allowEmulation say", () => {
    for (const [hypervisorDeviceAvailable, allowEmulation] of [
      [true, false],
      [false, false],
      [false, true],
    ] as const) {
      const d = run(hypervisor, arm64, {
        hostArchitecture: 'amd64',
        allowCrossArchEmulation: true,
        hypervisorDeviceAvailable,
        allowEmulation,
      });
      expect(d.type).toBe('qemu');
      expect(d.devices.emulator).toBe('/usr/bin/qemu-system-aarch64');
    }
  });

  it('names the emulator of each foreign architecture', () => {
    const on = (guest: string, host: string) =>
      run(hypervisor, vmi({}, { architecture: guest }), { hostArchitecture: host, allowCrossArchEmulation: true })
        .devices.emulator;
    expect(on('amd64', 'arm64')).toBe('/usr/bin/qemu-system-x86_64');
    expect(on('s390x', 'amd64')).toBe('/usr/bin/qemu-system-s390x');
  });

  it('keeps KVM and no <emulator> for a native guest, even with the switch on', () => {
    for (const v of [vmi({}, { architecture: 'amd64' }), vmi()]) {
      const d = run(hypervisor, v, { hostArchitecture: 'amd64', allowCrossArchEmulation: true });
      expect(d.type).toBe('kvm');
      expect(d.devices.emulator).toBeUndefined();
    }
  });
});
