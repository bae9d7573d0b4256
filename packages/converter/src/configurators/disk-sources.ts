// Where each kind of volume lives on the launcher's filesystem, and how libvirt should open it.
// All paths come from the context's Paths, so a --run-root launcher moves them together.
import type { Resolved } from '../context/resolve.js';
import type { BackingStore, DiskSource } from '../domain/types.js';
import { ConversionError, quote } from '../errors.js';
import type { VirtualMachineInstance, Volume } from '../vmi/types.js';

export interface VolumeDisk {
  type: 'file' | 'block';
  format: 'raw' | 'qcow2';
  source: DiskSource;
  backingStore?: BackingStore;
  /** downwardMetrics: fixed read-only raw disk with a bare driver. */
  metricsDisk?: boolean;
  /**
   * The source's own discard rule, on top of the device's (disks and LUNs unless ignored): KubeVirt's
   * overlays and empty disks always unmap, PVC-backed sources unless the volume is in the ignore list,
   * whatever the device (so a CD-ROM on a PVC unmaps too).
   */
  discard?: 'always' | 'unlessIgnored';
}

function basename(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? '';
}

// KubeVirt also writes name=<volume> on block sources; libvirt's schema allows `name` only on network
// disks (virt-xml-validate rejects it), so it is left out.
function pvcDisk(name: string, block: boolean, ctx: Resolved): VolumeDisk {
  const discard = 'unlessIgnored';
  return block
    ? { type: 'block', format: 'raw', source: { dev: `/dev/${name}` }, discard }
    : {
        type: 'file',
        format: 'raw',
        source: { file: `${ctx.paths.kubevirtPrivateDir}/vmi-disks/${name}/disk.img` },
        discard,
      };
}

/**
 * Changed block tracking (context.applyCBT names the volume): libvirt opens the qcow2 overlay virt-handler
 * made, which holds the dirty bitmaps, with the volume as its raw data file, so the guest's writes still
 * land in the volume. KubeVirt's shape; libvirt-compat refuses it where libvirt has no <dataStore>.
 */
function withCbt(name: string, disk: VolumeDisk, ctx: Resolved): VolumeDisk {
  const cbt = ctx.raw.applyCbt[name];
  if (!cbt) return disk;
  return {
    ...disk,
    type: 'file',
    format: 'qcow2',
    source: { file: cbt, dataStore: { type: disk.type, format: 'raw', source: disk.source } },
  };
}

function overlay(name: string, ctx: Resolved): string {
  return `${ctx.paths.ephemeralOverlayDir}/${name}/disk.qcow2`;
}

function hotplugDisk(volume: Volume, ctx: Resolved): VolumeDisk {
  const name = volume.name;
  const block = ctx.raw.isBlockPvc[name] === true || ctx.raw.isBlockDv[name] === true;
  const discard = 'unlessIgnored';
  return block
    ? { type: 'block', format: 'raw', source: { dev: `${ctx.paths.hotplugDiskDir}/${name}` }, discard }
    : { type: 'file', format: 'raw', source: { file: `${ctx.paths.hotplugDiskDir}/${name}.img` }, discard };
}

export function volumeDisk(
  vmi: VirtualMachineInstance,
  volume: Volume,
  volumeIndex: number,
  ctx: Resolved,
): VolumeDisk {
  const name = volume.name;
  const p = ctx.paths;
  const iso = (file: string): VolumeDisk => ({ type: 'file', format: 'raw', source: { file } });
  if (ctx.raw.hotplugVolumes[name] && (volume.persistentVolumeClaim || volume.dataVolume || volume.hostDisk)) {
    return withCbt(name, hotplugDisk(volume, ctx), ctx);
  }
  if (volume.containerDisk) {
    const info = ctx.raw.disksInfo[name];
    if (!info?.format) {
      throw new ConversionError(
        `spec.volumes[${volumeIndex}].containerDisk`,
        name,
        `no disk info (image format) in the context for volume ${quote(name)}`,
      );
    }
    return {
      type: 'file',
      format: 'qcow2',
      source: { file: overlay(name, ctx) },
      backingStore: {
        type: 'file',
        format: info.format,
        source: { file: `${p.containerDiskDir}/disk_${volumeIndex}.img` },
      },
      discard: 'always',
    };
  }
  if (volume.ephemeral) {
    const backing = pvcDisk(name, ctx.raw.isBlockPvc[name] === true, ctx);
    return {
      type: 'file',
      format: 'qcow2',
      source: { file: overlay(name, ctx) },
      backingStore: { type: backing.type, format: 'raw', source: backing.source },
      discard: 'always',
    };
  }
  if (volume.persistentVolumeClaim) return withCbt(name, pvcDisk(name, ctx.raw.isBlockPvc[name] === true, ctx), ctx);
  if (volume.dataVolume) return withCbt(name, pvcDisk(name, ctx.raw.isBlockDv[name] === true, ctx), ctx);
  if (volume.hostDisk)
    return withCbt(name, iso(`${p.kubevirtPrivateDir}/vmi-disks/${name}/${basename(volume.hostDisk.path)}`), ctx);
  if (volume.emptyDisk)
    return {
      type: 'file',
      format: 'qcow2',
      source: { file: `${p.libvirtRunDir}/empty-disks/${name}.qcow2` },
      discard: 'always',
    };
  const cloudInit = `${p.cloudInitDir}/${vmi.metadata.namespace ?? ''}/${vmi.metadata.name}`;
  if (volume.cloudInitNoCloud) return iso(`${cloudInit}/noCloud.iso`);
  if (volume.cloudInitConfigDrive) return iso(`${cloudInit}/configdrive.iso`);
  if (volume.configMap) return iso(`${p.kubevirtPrivateDir}/config-map-disks/${name}.iso`);
  if (volume.secret) return iso(`${p.kubevirtPrivateDir}/secret-disks/${name}.iso`);
  if (volume.downwardAPI) return iso(`${p.kubevirtPrivateDir}/downwardapi-disks/${name}.iso`);
  if (volume.serviceAccount) return iso(`${p.kubevirtPrivateDir}/service-account-disk/service-account.iso`);
  if (volume.sysprep) return iso(`${p.kubevirtPrivateDir}/sysprep-disks/${name}.iso`);
  if (volume.downwardMetrics)
    return { ...iso(`${p.kubevirtPrivateDir}/downwardapi-disks/vhostmd0`), metricsDisk: true };
  if (volume.memoryDump) {
    // A memory dump volume is the directory virt-handler mounts for a dump's output, never a disk of
    // the domain (KubeVirt's admission lets it go without a disk).
    throw new ConversionError(
      `spec.volumes[${volumeIndex}].memoryDump`,
      name,
      `volume ${quote(name)} is a memory dump target and cannot back a disk`,
    );
  }
  throw new ConversionError(`spec.volumes[${volumeIndex}]`, name, `disk ${name} references an unsupported source`);
}
