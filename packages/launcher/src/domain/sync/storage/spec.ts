// What the storage steps read of the VMI beyond the launcher's VmiView: access credentials, the volumes'
// full sources (sysprep, downwardMetrics, volume labels), PVC facts from status.volumeStatus and the firmware
// UUID the converter put into the domain. Read once per preStartHook from the request's JSON.
import { join } from 'node:path';
import type { VmiView } from '../../../vmi.js';
import type { SyncEnv } from '../env.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The PVC facts virt-controller copies into status.volumeStatus[].persistentVolumeClaimInfo. */
export interface PvcInfo {
  capacity: string;
  requests: string;
  volumeMode: string;
}

export interface StorageSpec {
  /** Firmware UUID: the domain's SMBIOS system uuid (spec.domain.firmware.uuid or the converter's default). */
  firmwareUuid: string;
  instanceType: string;
  /** Secret names of SSH keys propagated through cloud-init, per data source kind. */
  sshKeySecrets: { noCloud: string[]; configDrive: string[] };
  pvc: Record<string, PvcInfo>;
  /** The raw volume sources, by volume name. */
  sources: Record<string, Obj>;
  ignitionData: string;
}

/** The SMBIOS system uuid of the converted domain: what the guest reads as its firmware UUID. */
export function firmwareUuidOf(domainXml: string): string {
  const system = /<system>([\s\S]*?)<\/system>/.exec(domainXml)?.[1] ?? '';
  return /<entry name=["']uuid["']>([^<]*)<\/entry>/.exec(system)?.[1] ?? '';
}

export function readStorageSpec(vmi: VmiView, domainXml: string): StorageSpec {
  const doc = obj(JSON.parse(vmi.raw.toString('utf8')));
  const spec = obj(doc.spec);
  const sshKeySecrets: StorageSpec['sshKeySecrets'] = { noCloud: [], configDrive: [] };
  for (const credential of arr(spec.accessCredentials)) {
    const ssh = obj(credential.sshPublicKey);
    const secret = str(obj(obj(ssh.source).secret).secretName);
    const propagation = obj(ssh.propagationMethod);
    if (!secret) continue;
    if (propagation.noCloud) sshKeySecrets.noCloud.push(secret);
    if (propagation.configDrive) sshKeySecrets.configDrive.push(secret);
  }
  const pvc: StorageSpec['pvc'] = {};
  for (const status of arr(obj(doc.status).volumeStatus)) {
    const info = obj(status.persistentVolumeClaimInfo);
    if (!status.persistentVolumeClaimInfo || !str(status.name)) continue;
    pvc[str(status.name)] = {
      capacity: str(obj(info.capacity).storage),
      requests: str(obj(info.requests).storage),
      volumeMode: str(info.volumeMode),
    };
  }
  const sources: StorageSpec['sources'] = {};
  for (const volume of arr(spec.volumes)) sources[str(volume.name)] = volume;
  const annotations = vmi.annotations;
  return {
    firmwareUuid: firmwareUuidOf(domainXml),
    instanceType:
      annotations['kubevirt.io/cluster-instancetype-name'] ?? annotations['kubevirt.io/instancetype-name'] ?? '',
    sshKeySecrets,
    pvc,
    sources,
    ignitionData: annotations['kubevirt.io/ignitiondata'] ?? '',
  };
}

/** A pod path (absolute in the pod) as the launcher reaches it under --run-root. */
export function underRoot(env: Pick<SyncEnv, 'paths'>, path: string): string {
  return env.paths.runRoot === '/' || path.startsWith(env.paths.runRoot) ? path : join(env.paths.runRoot, path);
}

/** A path below KubeVirt's private dir (`/var/run/kubevirt-private/...`) moved to this launcher's private dir. */
export function inPrivateDir(env: SyncEnv, podPath: string): string {
  const prefix = '/var/run/kubevirt-private';
  return podPath.startsWith(`${prefix}/`)
    ? join(env.paths.privateDir, podPath.slice(prefix.length))
    : underRoot(env, podPath);
}
