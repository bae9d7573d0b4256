// "Set ownership": files the guest's QEMU opens belong to user qemu (uid/gid 107 in the launcher image).
// When the image has no such user (a developer machine) nothing is changed, as there is nobody to hand them to.
import { readFileSync } from 'node:fs';
import { chown, stat } from 'node:fs/promises';

export interface Owner {
  uid: number;
  gid: number;
}

let cached: Owner | null | undefined;

export function qemuOwner(passwdPath = '/etc/passwd'): Owner | null {
  if (cached !== undefined && passwdPath === '/etc/passwd') return cached;
  let found: Owner | null = null;
  try {
    for (const line of readFileSync(passwdPath, 'utf8').split('\n')) {
      const [user, , uid, gid] = line.split(':');
      if (user === 'qemu' && uid !== undefined && gid !== undefined) {
        found = { uid: Number(uid), gid: Number(gid) };
        break;
      }
    }
  } catch {
    found = null;
  }
  if (passwdPath === '/etc/passwd') cached = found;
  return found;
}

/** chown only when it would change something: a non-root launcher already runs as qemu. */
export async function setQemuOwnership(path: string): Promise<void> {
  const owner = qemuOwner();
  if (owner === null) return;
  const current = await stat(path);
  if (current.uid !== owner.uid || current.gid !== owner.gid) await chown(path, owner.uid, owner.gid);
}
