import { describe, expect, it } from 'vitest';
import { run, vmi } from '../testing/fixture.js';
import { os } from './os.js';

describe('os', () => {
  it('machine from the spec, arch defaults, smbios on amd64 only', () => {
    expect(run(os, vmi({ machine: { type: 'pc-q35-7.2' } })).os).toMatchObject({
      type: { arch: 'x86_64', machine: 'pc-q35-7.2' },
      smbiosMode: 'sysinfo',
    });
    const s390 = run(os, vmi(), { architecture: 's390x' }).os;
    expect(s390.type).toMatchObject({ arch: 's390x', machine: 's390-ccw-virtio' });
    expect(s390.smbiosMode).toBeUndefined();
  });
  it('kernel boot: kernel and initrd under <container-disk-dir>/kernel-boot, cmdline', () => {
    const v = vmi({
      firmware: {
        kernelBoot: {
          kernelArgs: 'console=ttyS0',
          container: { kernelPath: '/boot/vmlinuz-6', initrdPath: '/boot/initrd' },
        },
      },
    });
    const o = run(os, v, { paths: { containerDiskDir: '/rr/cd' } }).os;
    expect([o.kernel, o.initrd, o.cmdline]).toEqual([
      '/rr/cd/kernel-boot/vmlinuz-6',
      '/rr/cd/kernel-boot/initrd',
      'console=ttyS0',
    ]);
  });
  it('EFI with named files: loader + nvram under the nvram dir (non-root: under the private dir)', () => {
    const v = vmi({ firmware: { bootloader: { efi: { secureBoot: true } } } });
    const o = run(os, v, {
      nonRoot: true,
      efiConfiguration: { efiCode: '/c.fd', efiVars: '/v.fd', secureLoader: true, autoSelection: false },
    }).os;
    expect(o.loader).toEqual({ readonly: 'yes', secure: 'yes', type: 'pflash', path: '/c.fd' });
    expect(o.nvram).toEqual({ template: '/v.fd', path: '/var/run/kubevirt-private/libvirt/qemu/nvram/vm_VARS.fd' });
  });
  it('EFI without files: firmware auto-selection with secure-boot features', () => {
    const o = run(os, vmi({ firmware: { bootloader: { efi: {} } } })).os;
    expect(o.firmware).toBe('efi');
    expect(o.firmwareFeatures.map((f) => f.name)).toEqual(['secure-boot', 'enrolled-keys']);
  });
  it('paused start strategy opens the boot menu; useSerial BIOS', () => {
    const o = run(os, vmi({ firmware: { bootloader: { bios: { useSerial: true } } } }, { startStrategy: 'Paused' })).os;
    expect(o.bootmenu).toEqual({ enable: 'yes', timeout: 10000 });
    expect(o.biosUseSerial).toBe(true);
  });
  it('EFI auto-selection names the variable store as KubeVirt does (raw, under the nvram dir); not on arm64', () => {
    const v = vmi({ firmware: { bootloader: { efi: { secureBoot: false } } } });
    expect(
      run(os, v, { efiConfiguration: { efiCode: '', efiVars: '', secureLoader: false, autoSelection: true } }).os.nvram,
    ).toEqual({
      format: 'raw',
      path: '/var/lib/libvirt/qemu/nvram/vm_VARS.fd',
    });
    expect(run(os, v, { nonRoot: true }).os.nvram?.path).toBe(
      '/var/run/kubevirt-private/libvirt/qemu/nvram/vm_VARS.fd',
    );
    expect(run(os, v, { architecture: 'arm64' }).os.nvram).toBeUndefined();
  });
  it('kernelArgs: set with a kernel-boot container even without kernelPath, refused without a container', () => {
    const withInitrd = vmi({
      firmware: { kernelBoot: { kernelArgs: 'quiet', container: { image: 'k', initrdPath: '/boot/initrd' } } },
    });
    const o = run(os, withInitrd).os;
    expect(o.cmdline).toBe('quiet');
    expect(o.kernel).toBeUndefined();
    expect(() => run(os, vmi({ firmware: { kernelBoot: { kernelArgs: 'quiet' } } }))).toThrow(
      'spec.domain.firmware.kernelBoot.kernelArgs',
    );
  });
});
