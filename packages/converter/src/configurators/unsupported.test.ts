import { describe, expect, it } from 'vitest';
import { convert } from '../builder.js';
import { ConversionError } from '../errors.js';
import { ConverterContext } from '../gen/virtlauncher/converter/v1/converter.js';
import { run, vmi } from '../testing/fixture.js';
import type { DomainSpec } from '../vmi/types.js';
import { unsupported } from './unsupported.js';

function refusal(domain: Partial<DomainSpec>, ctx = {}, spec = {}): ConversionError | undefined {
  try {
    run(unsupported, vmi(domain, spec), ctx);
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
  it('a GPU or host device from a DRA claim needs its dra- device in the context', () => {
    const claims = { resourceClaims: [{ name: 'c', resourceClaimName: 'gpu-claim' }] };
    const gpus = { devices: { gpus: [{ name: 'g1', claimName: 'c', requestName: 'r' }] } };
    expect(refusal(gpus, {}, claims)?.message).toContain('"dra-gpu-g1"');
    // A device plugin's alias does not stand in for the claimed device.
    const plugin = { type: 'pci', alias: 'gpu-g1', pciAddress: '0000:81:00.0' };
    expect(refusal(gpus, { gpuHostDevices: [plugin] }, claims)?.field).toBe('spec.domain.devices.gpus[0]');
    const claimed = { ...plugin, alias: 'dra-gpu-g1' };
    expect(refusal(gpus, { gpuHostDevices: [claimed] }, claims)).toBe(undefined);
    const host = { devices: { hostDevices: [{ name: 'h', deviceName: '', claimName: 'c', requestName: 'r' }] } };
    expect(refusal(host, {}, claims)?.message).toContain('"dra-hostdevice-h"');
    const mdev = { type: 'mdev', alias: 'dra-hostdevice-h', mdevUuid: 'u' };
    expect(refusal(host, { genericHostDevices: [mdev] }, claims)).toBe(undefined);
  });
  it.each([
    [{ name: 'g', claimName: 'c' }, 'spec.domain.devices.gpus[0].requestName', 'incomplete claim request'],
    [{ name: 'g', requestName: 'r' }, 'spec.domain.devices.gpus[0].claimName', 'incomplete claim request'],
    [{ name: 'g', claimName: 'other', requestName: 'r' }, 'spec.domain.devices.gpus[0].claimName', 'resourceClaims'],
    [
      { name: 'g', deviceName: 'x/y', claimName: 'c', requestName: 'r' },
      'spec.domain.devices.gpus[0].claimName',
      'not both',
    ],
  ])('a DRA GPU %j is refused naming %s', (gpu, field, message) => {
    const ctx = { gpuHostDevices: [{ type: 'pci', alias: 'dra-gpu-g', pciAddress: '0000:81:00.0' }] };
    const err = refusal({ devices: { gpus: [gpu] } }, ctx, { resourceClaims: [{ name: 'c', resourceClaimName: 'x' }] });
    expect(err?.field).toBe(field);
    expect(err?.message).toContain(message);
  });
  it('convert() refuses a missing host device before building anything', () => {
    const v = vmi({ devices: { gpus: [{ name: 'g1', deviceName: 'nvidia.com/T4' }] } });
    expect(() => convert(v, ConverterContext.fromPartial({}))).toThrow(/no host device "gpu-g1"/);
  });
  it('convert() builds an SR-IOV NIC on a DRA network claim from its sriov- device', () => {
    const v = vmi(
      { devices: { interfaces: [{ name: 'fast', sriov: {} }] } },
      { networks: [{ name: 'fast', resourceClaim: { claimName: 'nics', requestName: 'vf' } }] },
    );
    const vf = { type: 'pci', alias: 'sriov-fast', pciAddress: '0000:3b:02.1' };
    const domain = convert(v, ConverterContext.fromPartial({ sriovDevices: [vf] }));
    expect(domain.devices.hostdevs.map((h) => h.alias?.name)).toEqual(['ua-sriov-fast']);
    expect(domain.devices.interfaces).toEqual([]);
    expect(() => convert(v, ConverterContext.fromPartial({}))).toThrow(/no host device "sriov-fast"/);
  });
});
