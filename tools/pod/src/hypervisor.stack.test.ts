// The hypervisor decision with a probe the test supplies, and the real probe against the pod's own private-/dev
// construction: a /dev/kvm that is not KVM, no /dev/kvm at all, and TCG standing in for a KVM that runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  decideHypervisor,
  HypervisorError,
  probeCpuModel,
  probeKvm,
  qemuReason,
  TEST_KVM_DEVICE_ENV,
  type KvmDevice,
  type ProbeResult,
} from './hypervisor.js';
import { repo } from './e2e-kit.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vlt-pod-probe-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const broken = { [TEST_KVM_DEVICE_ENV]: 'broken' };
const msr: ProbeResult = { usable: false, reason: 'failed to set MSR 0x10a to 0x69' };

describe('decideHypervisor', () => {
  it('emulation: no /dev/kvm and --allow-emulation, without probing', async () => {
    const probed: string[] = [];
    const d = await decideHypervisor(
      'emulation',
      undefined,
      async (dev) => (probed.push(dev), { usable: true }),
      broken,
    );
    expect(d).toMatchObject({ kvm: 'none', allowEmulation: true });
    expect(probed).toEqual([]);
  });

  it('auto with a device KVM cannot use: emulation, and one line with the reason', async () => {
    const d = await decideHypervisor('auto', undefined, async () => msr, broken);
    expect(d).toEqual({
      kvm: 'none',
      allowEmulation: true,
      line: 'KVM present but unusable (failed to set MSR 0x10a to 0x69): using emulation',
    });
  });

  it('auto with a usable device: the pod gets it and the launcher is not told to emulate', async () => {
    const seen: [KvmDevice, string][] = [];
    const d = await decideHypervisor(
      'auto',
      'host-model',
      async (dev, cpu) => (seen.push([dev, cpu]), { usable: true }),
      broken,
    );
    expect(d).toMatchObject({ kvm: 'broken', allowEmulation: false });
    expect(seen).toEqual([['broken', 'host']]);
  });

  it('kvm fails fast with the reason', async () => {
    await expect(decideHypervisor('kvm', undefined, async () => msr, broken)).rejects.toThrow(HypervisorError);
    await expect(decideHypervisor('kvm', undefined, async () => msr, broken)).rejects.toThrow(
      '--hypervisor kvm: KVM present but unusable (failed to set MSR 0x10a to 0x69)',
    );
  });

  it('refuses an unknown test device value', async () => {
    await expect(decideHypervisor('auto', undefined, async () => msr, { [TEST_KVM_DEVICE_ENV]: 'on' })).rejects.toThrow(
      `${TEST_KVM_DEVICE_ENV}=on`,
    );
  });
});

describe('probe helpers', () => {
  it('asks QEMU for the CPU model the domain will ask libvirt for', () => {
    expect(probeCpuModel(undefined)).toBe('host');
    expect(probeCpuModel('host-passthrough')).toBe('host');
    expect(probeCpuModel('Skylake-Client')).toBe('Skylake-Client');
  });

  it("keeps QEMU's own reason, without program and option prefixes", () => {
    expect(
      qemuReason(
        'qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69\nqemu-system-x86_64: ../target/i386/kvm/kvm.c:2893: kvm_buf_set_msrs: Assertion failed.\n',
      ),
    ).toBe('failed to set MSR 0x10a to 0x69');
    expect(
      qemuReason('kvm version too old\nqemu-system-x86_64: -accel kvm: failed to initialize kvm: Bad ioctl\n'),
    ).toBe('failed to initialize kvm: Bad ioctl');
  });
});

describe('probeKvm in the private /dev (real QEMU)', () => {
  it('a /dev/kvm that is not KVM is unusable, with the reason QEMU gives', async () => {
    const r = await probeKvm(repo, root, 'broken', 'host');
    expect(r.usable).toBe(false);
    expect(r.usable === false && r.reason).toMatch(/kvm/i);
  });

  it('no /dev/kvm is unusable', async () => {
    const r = await probeKvm(repo, root, 'none', 'host');
    expect(r).toEqual({ usable: false, reason: expect.stringMatching(/No such file or directory/) });
  });

  it('a vCPU that runs the firmware counts as usable (TCG stands in for a working KVM on any host)', async () => {
    expect(await probeKvm(repo, root, 'none', 'qemu64', 'tcg')).toEqual({ usable: true });
  });
});
