// Step 4 of SyncVMI, the storage half of KubeVirt's preStartHook (docs/behaviour.md#preparation-before-the-first-start): write layers over
// container disks, empty disks, DiskOrCreate host disks, cloud-init and config ISOs. Runs only when the
// domain is first defined, so a re-sync never touches a write layer that holds the guest's writes.
import { join } from 'node:path';
import { loadEphemeralDisk } from '../../adapters/ephemeral-disk.js';
import { log } from '../../log.js';
import type { VmiView, VolumeView } from '../../vmi.js';
import type { SyncEnv } from './env.js';

/** A VMI path is absolute in the pod; under --run-root it moves with everything else. */
function underRoot(env: SyncEnv, path: string): string {
  return env.paths.runRoot === '/' || path.startsWith(env.paths.runRoot) ? path : join(env.paths.runRoot, path);
}

type Eph = Awaited<ReturnType<typeof loadEphemeralDisk>>;

const configKinds: Array<{ key: keyof VolumeView; dir: string; label: string }> = [
  { key: 'configMap', dir: 'config-map', label: 'cfgdata' },
  { key: 'secret', dir: 'secret', label: 'cfgdata' },
  { key: 'downwardAPI', dir: 'downwardapi', label: 'cfgdata' },
  { key: 'serviceAccount', dir: 'service-account', label: 'cfgdata' },
];

async function prepareVolume(env: SyncEnv, eph: Eph, vmi: VmiView, v: VolumeView, index: number): Promise<void> {
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
    await eph.createHostDisk({ path: underRoot(env, v.hostDisk.path), capacity: v.hostDisk.capacity ?? '0' });
  } else if (v.cloudInitNoCloud || v.cloudInitConfigDrive) {
    log.info('Starting PreCloudInitIso hook');
    const source = (v.cloudInitNoCloud ?? v.cloudInitConfigDrive) as Record<string, unknown>;
    const text = (value: unknown): string => (typeof value === 'string' ? value : '');
    const secretDir = (ref: unknown, suffix: string) =>
      ref ? join(env.paths.privateDir, 'secret', `${v.name}${suffix}`) : '';
    await eph.createCloudInitIso({
      ephemeralDir: env.paths.ephemeralDiskDir,
      namespace: vmi.namespace,
      name: vmi.name,
      type: v.cloudInitNoCloud ? 1 : 2,
      userData: text(source.userData),
      userDataBase64: text(source.userDataBase64),
      userDataSecretDir: secretDir(source.secretRef, ''),
      networkData: text(source.networkData),
      networkDataBase64: text(source.networkDataBase64),
      networkDataSecretDir: secretDir(source.networkDataSecretRef, '-ndata'),
      metaData: {
        instanceId: '',
        hostname: vmi.hostname ?? '',
        instanceType: '',
        uuid: '',
        publicKeys: {},
        devices: [],
      },
    });
  } else {
    for (const kind of configKinds) {
      if (!v[kind.key]) continue;
      await eph.createConfigIso({
        sourceDir: join(env.paths.privateDir, kind.dir, v.name),
        targetPath: join(env.paths.privateDir, `${kind.dir}-disks`, `${v.name}.iso`),
        label: kind.label,
      });
    }
  }
}

export async function prepareStorage(env: SyncEnv, vmi: VmiView): Promise<void> {
  const needs = vmi.volumes.some(
    (v) =>
      v.containerDisk ||
      v.emptyDisk ||
      v.hostDisk ||
      v.cloudInitNoCloud ||
      v.cloudInitConfigDrive ||
      v.configMap ||
      v.secret ||
      v.downwardAPI ||
      v.serviceAccount,
  );
  if (!needs) return;
  const eph = await loadEphemeralDisk();
  for (const [index, v] of vmi.volumes.entries()) {
    try {
      await prepareVolume(env, eph, vmi, v, index);
    } catch (err) {
      throw new Error(`preparing volume ${v.name} failed: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }
}
