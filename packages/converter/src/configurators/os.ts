// <os>: machine, SMBIOS mode, boot menu, BIOS/EFI firmware, direct kernel boot, ACPI tables.
import { ConversionError } from '../errors.js';
import type { Configurator } from './configurator.js';

function basename(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

export const os: Configurator = {
  name: 'os',
  configure(vmi, domain, ctx) {
    const spec = vmi.spec.domain;
    const out = domain.os;
    out.type = { arch: ctx.arch.libvirtArch, machine: spec.machine?.type || ctx.arch.defaultMachine, value: 'hvm' };
    if (ctx.arch.smbiosNeeded) out.smbiosMode = 'sysinfo';
    if (vmi.spec.startStrategy === 'Paused') out.bootmenu = { enable: 'yes', timeout: 10000 };
    const firmware = spec.firmware;
    const bootloader = firmware?.bootloader;
    if (bootloader?.bios?.useSerial) out.biosUseSerial = true;
    // arm64 only boots with EFI: KubeVirt's arm64 defaults add it.
    const efi = bootloader?.efi ?? (ctx.arch.arch === 'arm64' ? { secureBoot: false } : undefined);
    if (efi) {
      const config = ctx.raw.efiConfiguration;
      if (!config || config.autoSelection) {
        // Without named firmware files libvirt chooses them; secure boot maps to its firmware features.
        out.firmware = 'efi';
        if (efi.secureBoot !== false) {
          out.firmwareFeatures.push({ enabled: 'yes', name: 'secure-boot' }, { enabled: 'yes', name: 'enrolled-keys' });
        }
        // The variable store keeps KubeVirt's name (a persistent EFI volume and migrations look for it).
        // arm64's auto-selected firmware keeps its variables in memory, which a pflash <nvram> contradicts.
        if (ctx.arch.arch !== 'arm64') {
          out.nvram = { format: 'raw', path: `${ctx.paths.nvramDir}/${vmi.metadata.name}_VARS.fd` };
        }
      } else {
        out.loader = {
          readonly: 'yes',
          secure: config.secureLoader ? 'yes' : 'no',
          type: 'pflash',
          path: config.efiCode,
        };
        out.nvram = { template: config.efiVars, path: `${ctx.paths.nvramDir}/${vmi.metadata.name}_VARS.fd` };
      }
    }
    const kernelBoot = firmware?.kernelBoot;
    if (kernelBoot) {
      const container = kernelBoot.container;
      const dir = `${ctx.paths.containerDiskDir}/kernel-boot`;
      if (container?.kernelPath) out.kernel = `${dir}/${basename(container.kernelPath)}`;
      if (container?.initrdPath) out.initrd = `${dir}/${basename(container.initrdPath)}`;
      if (kernelBoot.kernelArgs) {
        // KubeVirt's admission refuses arguments only without a kernel-boot container; with one (even
        // one that only brings an initrd) the arguments reach <cmdline>.
        if (!container) {
          throw new ConversionError(
            'spec.domain.firmware.kernelBoot.kernelArgs',
            kernelBoot.kernelArgs,
            'kernel arguments need a kernel-boot container (kernelBoot.container)',
          );
        }
        out.cmdline = kernelBoot.kernelArgs;
      }
    }
    const acpi = firmware?.acpi;
    // An acpi section with no table would silently give the guest none of what it asked for.
    if (acpi && !acpi.slicNameRef && !acpi.msdmNameRef) {
      throw new ConversionError('spec.domain.firmware.acpi', acpi, 'no ACPI tables were set, expecting at least one');
    }
    for (const [type, ref] of [
      ['slic', acpi?.slicNameRef],
      ['msdm', acpi?.msdmNameRef],
    ] as const) {
      if (!ref) continue;
      const volume = vmi.spec.volumes?.find((v) => v.name === ref);
      if (!volume?.secret) {
        throw new ConversionError(`spec.domain.firmware.acpi.${type}NameRef`, ref, 'does not name a secret volume');
      }
      out.acpiTables.push({ type, path: `${ctx.paths.kubevirtPrivateDir}/secret/${ref}/${type}.bin` });
    }
  },
};
