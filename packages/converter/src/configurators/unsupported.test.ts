import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConversionError } from '../errors.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { run, vmi } from '../testing/fixture.js';
import type { DomainSpec } from '../vmi/types.js';
import { unsupported } from './unsupported.js';

function refusal(domain: Partial<DomainSpec>, ctx = {}): ConversionError | undefined {
  try {
    run(unsupported, vmi(domain), ctx);
    return undefined;
  } catch (e) {
    if (e instanceof ConversionError) return e;
    throw e;
  }
}

describe('unsupported features are refused, never dropped', () => {
  it('launch security, realtime and NUMA passthrough are no longer refused here (they are built)', () => {
    expect(refusal({ launchSecurity: { sev: {} } })).toBe(undefined);
    expect(refusal({ cpu: { dedicatedCpuPlacement: true, realtime: {} } })).toBe(undefined);
    expect(refusal({}, { useLaunchSecuritySev: true, useLaunchSecurityPv: true })).toBe(undefined);
  });
  it('blockSize.matchVolume is no longer refused here (the disks configurator builds it from the context)', () => {
    expect(refusal({ devices: { disks: [{ name: 'd', blockSize: { matchVolume: { enabled: true } } }] } })).toBe(
      undefined,
    );
  });
  it('a GPU, host device or SR-IOV interface needs its device in the context', () => {
    const gpus = { devices: { gpus: [{ name: 'g1', deviceName: 'nvidia.com/T4' }] } };
    expect(refusal(gpus)?.field).toBe('spec.domain.devices.gpus[0]');
    const found = { type: 'pci', alias: 'gpu-g1', pciAddress: '0000:81:00.0' };
    expect(refusal(gpus, { gpuHostDevices: [found] })).toBe(undefined);
    const host = { devices: { hostDevices: [{ name: 'h', deviceName: 'x/y' }] } };
    expect(refusal(host)?.message).toContain('hostdevice-h');
    const sriov = { devices: { interfaces: [{ name: 'net1', sriov: {} }] } };
    expect(refusal(sriov)?.field).toBe('spec.domain.devices.interfaces[0]');
    expect(refusal(sriov, { sriovDevices: [{ type: 'pci', alias: 'sriov-net1', pciAddress: '0000:3b:02.1' }] })).toBe(
      undefined,
    );
  });
  it('convert() refuses a missing host device before building anything', () => {
    const v = vmi({ devices: { gpus: [{ name: 'g1', deviceName: 'nvidia.com/T4' }] } });
    expect(() => convert(v, ConverterContext.fromPartial({}))).toThrow(/no host device "gpu-g1"/);
  });
});
