// SSH public keys propagated through cloud-init: every regular file of each access-credential secret directory
// (`/var/run/kubevirt-private/secret/<secret>-access-cred/`), skipping Kubernetes' "..data" internals and empty
// files, numbered "0", "1", ... across all directories in order.
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export async function readAccessCredentialKeys(dirs: readonly string[]): Promise<Record<string, string>> {
  const keys: Record<string, string> = {};
  let counter = 0;
  for (const dir of dirs) {
    for (const entry of (await readdir(dir)).sort()) {
      if (entry.startsWith('..')) continue;
      const path = join(dir, entry);
      // stat (not lstat): the visible keys are symlinks into ..data.
      if (!(await stat(path)).isFile()) continue;
      const content = (await readFile(path, 'utf8')).trim();
      if (content) keys[String(counter++)] = content;
    }
  }
  return keys;
}
