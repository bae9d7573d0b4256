// configMap, secret, downwardAPI, serviceAccount and sysprep volumes become ISO disks built from the directory
// Kubernetes mounted into the pod. Source and ISO paths are ephemeral-disk's configIsoRequestFor (the ones
// the converter's domain names), moved under this launcher's root: a service account's token comes from
// /var/run/secrets/kubernetes.io/serviceaccount and its ISO is service-account-disk/service-account.iso.
import type { ConfigVolumeKind, EphemeralDiskFace } from '../../../adapters/ephemeral-disk.js';
import type { VolumeView } from '../../../vmi.js';
import type { SyncEnv } from '../env.js';
import { inPrivateDir, type StorageSpec } from './spec.js';

const kinds: ConfigVolumeKind[] = ['configMap', 'secret', 'downwardAPI', 'serviceAccount', 'sysprep'];

export function configVolumeKind(source: Record<string, unknown>): ConfigVolumeKind | undefined {
  return kinds.find((kind) => source[kind] !== undefined && source[kind] !== null);
}

export async function prepareConfigVolume(
  env: SyncEnv,
  eph: EphemeralDiskFace,
  volume: VolumeView,
  spec: StorageSpec,
): Promise<boolean> {
  const source = spec.sources[volume.name] ?? {};
  const kind = configVolumeKind(source);
  if (kind === undefined) return false;
  const fields = (source[kind] ?? {}) as Record<string, unknown>;
  const label = typeof fields.volumeLabel === 'string' ? fields.volumeLabel : '';
  const request = eph.configIsoRequestFor(kind, volume.name, label);
  const rooted = {
    ...request,
    sourceDir: inPrivateDir(env, request.sourceDir),
    targetPath: inPrivateDir(env, request.targetPath),
  };
  if (kind === 'sysprep') await eph.createSysprepIso(rooted);
  else await eph.createConfigIso(rooted);
  return true;
}
