// configMap / secret / downwardAPI / serviceAccount / sysprep volumes handed to the guest as ISO disks,
// built from the directories Kubernetes mounted into the pod and rebuilt on every start.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { pinDirectory } from './beneath.js';
import { InvalidRequestError, SysprepUnattendMissingError } from './errors.js';
import type { ConfigIsoRequest, IsoResult } from './gen/virtlauncher/disk/v1/disk.js';
import { buildIso, validateIsoLabel } from './iso.js';
import { validateVolumeName } from './names.js';
import { report, type CallOptions } from './progress.js';

export type ConfigVolumeKind = 'configMap' | 'secret' | 'downwardAPI' | 'serviceAccount' | 'sysprep';

const DEFAULT_LABEL = 'cfgdata';
const PRIVATE = '/var/run/kubevirt-private';

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

/**
 * The entries that go into the ISO. Kubernetes' atomic-writer internals ("..data", "..2024_01_01_…") are left
 * out on purpose: the visible keys are symlinks into them and are followed, so including the internals would
 * only put every file in the ISO twice.
 */
export async function configEntries(sourceDir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(sourceDir);
  } catch (error) {
    throw new InvalidRequestError(
      'source_dir',
      `${sourceDir} cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  return names.filter((name) => !name.startsWith('..')).sort();
}

export async function createConfigIso(request: ConfigIsoRequest, options: CallOptions = {}): Promise<IsoResult> {
  const label = request.label || DEFAULT_LABEL;
  validateIsoLabel(label);
  if (!request.sourceDir) throw new InvalidRequestError('source_dir', 'must not be empty');
  if (!request.targetPath) throw new InvalidRequestError('target_path', 'must not be empty');
  const sourceDir = resolve(request.sourceDir);
  const target = resolve(request.targetPath);
  const names = await configEntries(sourceDir);
  // The ISO's directory (e.g. config-map-disks) is opened without following a link (beneath.ts).
  const dir = await pinDirectory(dirname(target), [], 0o750);
  report(options, { step: 'build-iso', subject: target, msg: `generating ${label} iso ${target} from ${sourceDir}` });
  // The mkisofs tools refuse an empty path list, so an empty source becomes an empty directory.
  const empty = names.length === 0 ? await mkdtemp(join(tmpdir(), 'vlt-empty-iso-')) : undefined;
  try {
    const built = await buildIso({
      dir,
      name: basename(target),
      label,
      content:
        empty !== undefined
          ? { kind: 'directory', dir: empty }
          : { kind: 'graft', entries: names.map((name) => [name, join(sourceDir, name)] as const) },
    });
    return { path: built.path, label: built.label, size: built.size };
  } finally {
    await dir.close();
    if (empty !== undefined) await rm(empty, { recursive: true, force: true });
  }
}

/** A sysprep ISO is useless without an answer file; check for one (any letter case) before building. */
export async function createSysprepIso(request: ConfigIsoRequest, options: CallOptions = {}): Promise<IsoResult> {
  const names = await configEntries(resolve(request.sourceDir));
  const hasAnswerFile = names.some((name) => ['autounattend.xml', 'unattend.xml'].includes(name.toLowerCase()));
  if (!hasAnswerFile) throw new SysprepUnattendMissingError(request.sourceDir);
  return createConfigIso({ ...request, label: request.label || 'unattendCD' }, options);
}
