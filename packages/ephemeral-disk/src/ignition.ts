// Ignition data handed to the guest through QEMU's fw_cfg (`opt/com.coreos/config`): the VMI's
// `kubevirt.io/ignitiondata` annotation written to <ephemeral-dir>/ignition-data/<ns>/<name>/data.ign, the
// file the domain's qemu:commandline names. Rewritten on every start, like the cloud-init ISO.
import { rename, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createExclusive, pinDirectory } from './beneath.js';
import { InvalidRequestError } from './errors.js';
import { validateNamespace, validateObjectName } from './names.js';

export const IGNITION_FILE = 'data.ign';

export function ignitionPath(ephemeralDir: string, namespace: string, name: string): string {
  validateNamespace(namespace);
  validateObjectName(name);
  return join(resolve(ephemeralDir), 'ignition-data', namespace, name, IGNITION_FILE);
}

export async function createIgnitionFile(request: {
  ephemeralDir: string;
  namespace: string;
  name: string;
  data: string;
}): Promise<{ path: string; size: number }> {
  const path = ignitionPath(request.ephemeralDir, request.namespace, request.name);
  if (!request.data) throw new InvalidRequestError('ignition data', 'must not be empty');
  const dir = await pinDirectory(request.ephemeralDir, ['ignition-data', request.namespace, request.name]);
  const temp = `.${IGNITION_FILE}.${process.pid}.tmp`;
  try {
    await unlink(dir.at(temp)).catch(() => undefined);
    const handle = await createExclusive(dir, temp, 0o644);
    try {
      await handle.writeFile(request.data, 'utf8');
    } finally {
      await handle.close();
    }
    // rename replaces a planted link at data.ign itself instead of writing through it.
    await rename(dir.at(temp), dir.at(IGNITION_FILE));
    return { path, size: Buffer.byteLength(request.data) };
  } finally {
    await dir.close();
  }
}
