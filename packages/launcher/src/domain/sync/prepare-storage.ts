// Step 4 of SyncVMI, the storage half of KubeVirt's preStartHook (docs/behaviour.md#preparation-before-the-first-start):
// every file the domain names is made here before it is defined: write layers over container disks and
// ephemeral claims, claims' disk.img, empty disks, DiskOrCreate host disks, the cloud-init ISO, config and
// sysprep ISOs, the downwardMetrics disk and the ignition file. Runs only when the domain is first defined,
// so a re-sync never touches a write layer that holds the guest's writes. Each kind is a step in storage/.
import { join } from 'node:path';
import { loadEphemeralDisk, type EphemeralDiskFace } from '../../adapters/ephemeral-disk.js';
import type { VmiView, VolumeView } from '../../vmi.js';
import type { SyncEnv } from './env.js';
import { prepareCloudInit } from './storage/cloud-init.js';
import { prepareConfigVolume } from './storage/config-volumes.js';
import { prepareMetricsDisk } from './storage/downward-metrics.js';
import { hostDiskPath, preparePvcVolume } from './storage/pvc.js';
import { applyDiskCacheModes } from './storage/disk-cache.js';
import { readStorageSpec, underRoot, type StorageSpec } from './storage/spec.js';
import { volumeStatusMaps } from './runtime/context-facts.js';

async function prepareVolume(
  env: SyncEnv,
  eph: EphemeralDiskFace,
  vmi: VmiView,
  v: VolumeView,
  index: number,
  spec: StorageSpec,
): Promise<void> {
  if (v.containerDisk) {
    await eph.createWriteLayer({
      ephemeralDir: env.paths.ephemeralDiskDir,
      volume: v.name,
      backingFile: join(env.paths.containerDiskDir, `disk_${index}.img`),
    });
  } else if (v.emptyDisk) {
    await eph.createEmptyDisk({
      emptyDiskDir: join(env.paths.libvirtRunDir, 'empty-disks'),
      volume: v.name,
      capacity: v.emptyDisk.capacity ?? '0',
    });
  } else if (v.hostDisk && v.hostDisk.type === 'DiskOrCreate' && v.hostDisk.path) {
    // The host directory is mounted in the pod at vmi-disks/<volume>/: the file is made (and named by the
    // domain) there, under its own base name.
    const path = hostDiskPath(env, v.name, v.hostDisk.path);
    await eph.createHostDisk({ path, capacity: v.hostDisk.capacity ?? '0' });
  } else if (v.cloudInitNoCloud || v.cloudInitConfigDrive) {
    await prepareCloudInit(env, eph, vmi, v, spec);
  } else if (spec.sources[v.name]?.downwardMetrics) {
    await prepareMetricsDisk(env, eph);
  } else if (!(await preparePvcVolume(env, eph, v, index, spec))) {
    await prepareConfigVolume(env, eph, v, spec);
  }
}

/** Makes the files, then returns the domain XML with the disks' cache and I/O modes set for those files. */
export async function prepareStorage(env: SyncEnv, vmi: VmiView, domainXml: string): Promise<string> {
  const spec = readStorageSpec(vmi, domainXml);
  if (vmi.volumes.length === 0 && !spec.ignitionData) return domainXml;
  const eph = await loadEphemeralDisk();
  // Hotplug volumes are virt-handler's to mount (at the hotplug path): nothing to make here, as in KubeVirt.
  const { hotplugVolumes } = volumeStatusMaps(vmi);
  for (const [index, v] of vmi.volumes.entries()) {
    if (hotplugVolumes[v.name]) continue;
    try {
      await prepareVolume(env, eph, vmi, v, index, spec);
    } catch (err) {
      throw new Error(`preparing volume ${v.name} failed: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }
  if (spec.ignitionData) {
    await eph.createIgnitionFile({
      ephemeralDir: env.paths.ephemeralDiskDir,
      namespace: vmi.namespace,
      name: vmi.name,
      data: spec.ignitionData,
    });
  }
  return applyDiskCacheModes(domainXml, { eph, local: (path) => underRoot(env, path) });
}
