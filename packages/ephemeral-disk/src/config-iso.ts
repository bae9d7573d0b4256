// configMap / secret / downwardAPI / serviceAccount / sysprep volumes handed to the guest as ISO disks,
// built from the directories Kubernetes mounted into the pod and rebuilt on every start.
import { mkdtemp, rm } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { removeStaleEntries } from './atomic.js';
import { pinDirectory } from './beneath.js';
import { configEntries, stageConfigSource } from './config-source.js';
import { InvalidRequestError, SysprepUnattendMissingError } from './errors.js';
import type { ConfigIsoRequest, IsoResult } from './gen/virtlauncher/disk/v1/disk.js';
import { buildIso, validateIsoLabel } from './iso.js';
import { validateVolumeName } from './names.js';
import { report, type CallOptions } from './progress.js';

export type ConfigVolumeKind = 'configMap' | 'secret' | 'downwardAPI' | 'serviceAccount' | 'sysprep';

const DEFAULT_LABEL = 'cfgdata';
const PRIVATE = '/var/run/kubevirt-private';
const STAGING_MARK = '.staging-';

/** Where KubeVirt mounts each kind's source and where the launcher's domain expects the ISO. */
export function configIsoRequestFor(kind: ConfigVolumeKind, volume: string, volumeLabel = ''): ConfigIsoRequest {
  validateVolumeName(volume);
  switch (kind) {
    case 'configMap':
      return iso(`${PRIVATE}/config-map/${volume}`, `${PRIVATE}/config-map-disks/${volume}.iso`, volumeLabel);
    case 'secret':
      return iso(`${PRIVATE}/secret/${volume}`, `${PRIVATE}/secret-disks/${volume}.iso`, volumeLabel);
    case 'downwardAPI':
      return iso(`${PRIVATE}/downwardapi/${volume}`, `${PRIVATE}/downwardapi-disks/${volume}.iso`, volumeLabel);
    case 'serviceAccount':
      return iso(
        '/var/run/secrets/kubernetes.io/serviceaccount',
        `${PRIVATE}/service-account-disk/service-account.iso`,
        '',
      );
    case 'sysprep':
      return iso(`${PRIVATE}/sysprep/${volume}`, `${PRIVATE}/sysprep-disks/${volume}.iso`, 'unattendCD');
  }
}

function iso(sourceDir: string, targetPath: string, label: string): ConfigIsoRequest {
  return { sourceDir, targetPath, label: label || DEFAULT_LABEL };
}

export async function createConfigIso(request: ConfigIsoRequest, options: CallOptions = {}): Promise<IsoResult> {
  const label = request.label || DEFAULT_LABEL;
  validateIsoLabel(label);
  if (!request.sourceDir) throw new InvalidRequestError('source_dir', 'must not be empty');
  if (!request.targetPath) throw new InvalidRequestError('target_path', 'must not be empty');
  const sourceDir = resolve(request.sourceDir);
  const target = resolve(request.targetPath);
  // The ISO's directory (e.g. config-map-disks) is opened without following a link (beneath.ts).
  const dir = await pinDirectory(dirname(target), [], 0o750);
  const name = basename(target);
  report(options, { step: 'build-iso', subject: target, msg: `generating ${label} iso ${target} from ${sourceDir}` });
  // The content is copied into a fresh 0700 directory beside the ISO (config-source.ts says why). It is named
  // after our pid so a later call can tell a crashed call's leftovers (possibly secrets) from a live one's.
  const prefix = `.${name}${STAGING_MARK}`;
  try {
    await removeStaleEntries(dir.at('.'), prefix);
    const staging = await mkdtemp(dir.at(`${prefix}${process.pid}-`));
    try {
      await stageConfigSource(sourceDir, staging);
      const built = await buildIso({ dir, name, label, content: { kind: 'directory', dir: staging } });
      return { path: built.path, label: built.label, size: built.size };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  } finally {
    await dir.close();
  }
}

/** A sysprep ISO is useless without an answer file; check for one (any letter case) before building. */
export async function createSysprepIso(request: ConfigIsoRequest, options: CallOptions = {}): Promise<IsoResult> {
  const names = await configEntries(resolve(request.sourceDir));
  const hasAnswerFile = names.some((name) => ['autounattend.xml', 'unattend.xml'].includes(name.toLowerCase()));
  if (!hasAnswerFile) throw new SysprepUnattendMissingError(request.sourceDir);
  return createConfigIso({ ...request, label: request.label || 'unattendCD' }, options);
}
