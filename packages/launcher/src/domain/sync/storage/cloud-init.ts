// The cloud-init data source of a VMI (NoCloud or ConfigDrive), as KubeVirt builds it: user/network data
// inline, base64 or from the volume's secret (mounted at secret/<volume>/, keys userdata/userData and
// networkdata/networkData), SSH keys from access credentials propagated through this data source
// (secret/<secret>-access-cred/, into the meta-data public keys), and the firmware UUID as NoCloud's
// instance-id and ConfigDrive's uuid.
import { join } from 'node:path';
import type { EphemeralDiskFace } from '../../../adapters/ephemeral-disk.js';
import { log } from '../../../log.js';
import type { VmiView, VolumeView } from '../../../vmi.js';
import type { SyncEnv } from '../env.js';
import type { StorageSpec } from './spec.js';
import { preCloudInitIso } from '../../../hooks/cloud-init.js';
import { loadEphemeralDisk } from '../../../adapters/ephemeral-disk.js';
import { buildDeviceMetadata, hasDeviceTags, readDeviceTags, type HostPciFacts } from './device-metadata.js';

type CloudInitIsoRequest = Parameters<EphemeralDiskFace['createCloudInitIso']>[0];

// The request each VMI's config drive was first written with, kept (like KubeVirt's cloud-init data store)
// so the drive is written again after define from the same data, without running the hook a second time.
const configDriveRequests = new WeakMap<VmiView, CloudInitIsoRequest>();

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export async function prepareCloudInit(
  env: SyncEnv,
  eph: EphemeralDiskFace,
  vmi: VmiView,
  volume: VolumeView,
  spec: StorageSpec,
): Promise<void> {
  log.info('Starting PreCloudInitIso hook');
  const noCloud = volume.cloudInitNoCloud !== undefined;
  const source = (volume.cloudInitNoCloud ?? volume.cloudInitConfigDrive ?? {}) as Record<string, unknown>;
  const secretRoot = join(env.paths.privateDir, 'secret');
  // Both secret refs of one volume are mounted as the same directory, named after the volume.
  const secretDir = (ref: unknown): string => (ref ? join(secretRoot, volume.name) : '');
  const keySecrets = noCloud ? spec.sshKeySecrets.noCloud : spec.sshKeySecrets.configDrive;
  const publicKeys = await eph.readAccessCredentialKeys(keySecrets.map((s) => join(secretRoot, `${s}-access-cred`)));
  const hooked = await preCloudInitIso(env.hooks, vmi.raw, {
    noCloud,
    volumeName: volume.name,
    source,
    userDataSecretDir: secretDir(source.secretRef),
    networkDataSecretDir: secretDir(source.networkDataSecretRef),
    metaData: { 'instance-id': noCloud ? spec.firmwareUuid : '', 'local-hostname': vmi.hostname ?? vmi.name },
  });
  const request: CloudInitIsoRequest = {
    ephemeralDir: env.paths.ephemeralDiskDir,
    namespace: vmi.namespace,
    name: vmi.name,
    type: noCloud ? eph.CloudInitType.CLOUD_INIT_TYPE_NOCLOUD : eph.CloudInitType.CLOUD_INIT_TYPE_CONFIGDRIVE,
    // A PreCloudInitIso hook's answer is final: it replaces every source of user and network data.
    userData: hooked ? hooked.userData : text(source.userData),
    userDataBase64: hooked ? '' : text(source.userDataBase64),
    userDataSecretDir: hooked ? '' : secretDir(source.secretRef),
    networkData: hooked ? hooked.networkData : text(source.networkData),
    networkDataBase64: hooked ? '' : text(source.networkDataBase64),
    networkDataSecretDir: hooked ? '' : secretDir(source.networkDataSecretRef),
    metaData: {
      // NoCloud's instance-id is the firmware UUID; ConfigDrive keeps "<name>.<namespace>" and carries the UUID.
      instanceId: noCloud ? spec.firmwareUuid : '',
      hostname: vmi.hostname ?? '',
      instanceType: spec.instanceType,
      uuid: spec.firmwareUuid,
      publicKeys,
      devices: [],
    },
  };
  await eph.createCloudInitIso(request);
  if (!noCloud) configDriveRequests.set(vmi, request);
}

/**
 * After define: the config drive again, now listing the VMI's tagged devices at the addresses the defined domain
 * gives them (storage/device-metadata.ts), as KubeVirt writes it once more before the first start. Nothing is
 * rewritten when no device is tagged or the VMI has no config drive (NoCloud has no device metadata).
 */
export async function writeConfigDriveDevices(
  vmi: VmiView,
  definedXml: () => Promise<string>,
  host: HostPciFacts,
): Promise<number> {
  const request = configDriveRequests.get(vmi);
  const tags = readDeviceTags(vmi.raw);
  if (!request?.metaData || !hasDeviceTags(tags)) return 0;
  const devices = await buildDeviceMetadata(await definedXml(), tags, host);
  if (devices.length === 0) return 0;
  const eph = await loadEphemeralDisk();
  await eph.createCloudInitIso({ ...request, metaData: { ...request.metaData, devices } });
  return devices.length;
}
