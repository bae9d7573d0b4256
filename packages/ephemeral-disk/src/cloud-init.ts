// The cloud-init ISO at <ephemeral_dir>/cloud-init-data/<namespace>/<name>/{noCloud,configdrive}.iso.
// Its files are staged in a private directory that is removed once the ISO is built (they may hold secrets).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { removeStaleEntries } from './atomic.js';
import { pinDirectory, type PinnedDir } from './beneath.js';
import { InvalidRequestError } from './errors.js';
import { CloudInitType, type CloudInitIsoRequest, type IsoResult } from './gen/virtlauncher/disk/v1/disk.js';
import { configDriveMetaData, noCloudMetaData, resolveCloudInitData, type CloudInitData } from './cloud-init-data.js';
import { buildIso } from './iso.js';
import { validateNamespace, validateObjectName } from './names.js';
import { report, type CallOptions } from './progress.js';

const ISO_TIMEOUT_MS = 10_000;

interface Layout {
  file: string;
  label: string;
  /** Relative path -> content. */
  files: Array<[string, string]>;
}

function layoutFor(request: CloudInitIsoRequest, data: CloudInitData): Layout {
  const { namespace, name, metaData } = request;
  if (request.type === CloudInitType.CLOUD_INIT_TYPE_NOCLOUD) {
    const files: Array<[string, string]> = [
      ['user-data', data.userData],
      ['meta-data', noCloudMetaData(namespace, name, metaData)],
    ];
    if (data.networkData) files.push(['network-config', data.networkData]);
    return { file: 'noCloud.iso', label: 'cidata', files };
  }
  if (request.type === CloudInitType.CLOUD_INIT_TYPE_CONFIGDRIVE) {
    const files: Array<[string, string]> = [
      ['openstack/latest/user_data', data.userData],
      ['openstack/latest/meta_data.json', configDriveMetaData(namespace, name, metaData)],
    ];
    if (data.networkData) files.push(['openstack/latest/network_data.json', data.networkData]);
    return { file: 'configdrive.iso', label: 'config-2', files };
  }
  throw new InvalidRequestError('type', 'must be nocloud or configdrive');
}

export function cloudInitIsoPath(ephemeralDir: string, namespace: string, name: string, type: CloudInitType): string {
  validateNamespace(namespace);
  validateObjectName(name);
  const file = type === CloudInitType.CLOUD_INIT_TYPE_CONFIGDRIVE ? 'configdrive.iso' : 'noCloud.iso';
  return join(resolve(ephemeralDir), 'cloud-init-data', namespace, name, file);
}

export async function createCloudInitIso(request: CloudInitIsoRequest, options: CallOptions = {}): Promise<IsoResult> {
  validateNamespace(request.namespace);
  validateObjectName(request.name);
  if (!request.ephemeralDir) throw new InvalidRequestError('ephemeral_dir', 'must not be empty');
  const data = await resolveCloudInitData(request);
  const layout = layoutFor(request, data);
  // Every directory below the ephemeral dir is opened without following links (beneath.ts).
  const vmDir = await pinDirectory(request.ephemeralDir, ['cloud-init-data', request.namespace, request.name]);
  try {
    return await buildInPinned(vmDir, layout, options);
  } finally {
    await vmDir.close();
  }
}

async function buildInPinned(vmDir: PinnedDir, layout: Layout, options: CallOptions): Promise<IsoResult> {
  // Named after our pid so a later call can tell a crashed call's leftovers (possibly secrets) from a live one.
  await removeStaleEntries(vmDir.at('.'), '.data-');
  // mkdtemp makes a fresh 0700 directory (never an existing one), so nothing planted is written through.
  const staging = await mkdtemp(vmDir.at(`.data-${process.pid}-`));
  try {
    for (const [relative, content] of layout.files) {
      const path = join(staging, relative);
      await mkdir(resolve(path, '..'), { recursive: true, mode: 0o700 });
      await writeFile(path, content, { mode: 0o600, flag: 'wx' });
    }
    const target = vmDir.shown(layout.file);
    report(options, { step: 'build-iso', subject: target, msg: `generating ${layout.label} iso ${target}` });
    const built = await buildIso({
      dir: vmDir,
      name: layout.file,
      label: layout.label,
      content: { kind: 'directory', dir: staging },
      timeoutMs: ISO_TIMEOUT_MS,
    });
    report(options, {
      step: 'build-iso',
      subject: target,
      msg: `generated ${layout.label} iso ${target} with ${built.tool}`,
    });
    return { path: built.path, label: built.label, size: built.size };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
