// PreCloudInitIso for the launcher's cloud-init step: the hook sees the user and network data already resolved
// (inline, base64 or from the volume's secret, as the ISO would carry them) and its answer replaces them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CloudInitData, HookCallbacks } from './callbacks.js';

export interface CloudInitSource {
  userData?: unknown;
  userDataBase64?: unknown;
  networkData?: unknown;
  networkDataBase64?: unknown;
}

async function firstFile(dir: string, names: string[]): Promise<string> {
  for (const name of names) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return '';
}

async function resolve(inline: unknown, base64: unknown, secretDir: string, keys: string[]): Promise<string> {
  if (typeof inline === 'string' && inline !== '') return inline;
  if (typeof base64 === 'string' && base64 !== '') return Buffer.from(base64, 'base64').toString('utf8');
  return secretDir ? firstFile(secretDir, keys) : '';
}

/** Runs the PreCloudInitIso hooks; undefined when no sidecar registered for it (the source is used as is). */
export async function preCloudInitIso(
  hooks: HookCallbacks | undefined,
  vmiJson: Buffer,
  req: {
    noCloud: boolean;
    volumeName: string;
    source: CloudInitSource;
    userDataSecretDir: string;
    networkDataSecretDir: string;
    metaData: Record<string, unknown>;
  },
): Promise<{ userData: string; networkData: string } | undefined> {
  if (!hooks?.has('PreCloudInitIso')) return undefined;
  const { source } = req;
  const data: CloudInitData = {
    DataSource: req.noCloud ? 'noCloud' : 'configDrive',
    NoCloudMetaData: req.noCloud ? req.metaData : null,
    ConfigDriveMetaData: req.noCloud ? null : req.metaData,
    UserData: await resolve(source.userData, source.userDataBase64, req.userDataSecretDir, ['userdata', 'userData']),
    NetworkData: await resolve(source.networkData, source.networkDataBase64, req.networkDataSecretDir, [
      'networkdata',
      'networkData',
    ]),
    VolumeName: req.volumeName,
  };
  const result = await hooks.preCloudInitIso(data, vmiJson);
  return { userData: result.UserData, networkData: result.NetworkData };
}
