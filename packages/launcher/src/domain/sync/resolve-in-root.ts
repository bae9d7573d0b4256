// A path inside a directory that stands for a whole file system: an image volume, the files of an OCI image as
// kubelet mounts them. Links are followed as if the directory were `/` (an absolute link starts again at the
// directory, `..` stops there), so no name the image carries can lead to a file of the pod outside it. KubeVirt
// resolves image-volume paths the same way: pkg/safepath/safepath.go JoinAndResolveWithRelativeRoot and advance in
// pkg/safepath/safepath_linux.go, which also stop after 256 path elements so a loop of links ends.
import { lstat, readlink } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** A path that cannot be resolved inside its root: names the root, the path asked for and why. */
export class RootedPathError extends Error {
  constructor(
    readonly root: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} in ${root}: ${reason}`);
    this.name = 'RootedPathError';
  }
}

/** KubeVirt's limit of path elements one resolution may evaluate (links add theirs). */
export const MAX_PATH_ELEMENTS = 256;

/**
 * The host path of `elems` joined inside `root`, every link resolved within `root`. Throws RootedPathError when
 * a component is missing or the resolution evaluates more than MAX_PATH_ELEMENTS elements.
 */
export async function resolveInRoot(root: string, ...elems: string[]): Promise<string> {
  const asked = posix.join('/', ...elems);
  if (!posix.isAbsolute(root)) throw new RootedPathError(root, asked, 'the root is not an absolute path');
  // The elements still to walk, the next one last.
  const pending: string[] = [];
  let evaluated = 0;
  const push = (path: string) => {
    const parts = posix.normalize(path).split('/').filter(Boolean);
    evaluated += parts.length;
    if (evaluated > MAX_PATH_ELEMENTS)
      throw new RootedPathError(root, asked, `more than ${MAX_PATH_ELEMENTS} path elements evaluated`);
    pending.push(...parts.reverse());
  };
  for (const elem of [...elems].reverse()) push(elem);
  let current = '/';
  for (let child = pending.pop(); child !== undefined; child = pending.pop()) {
    // posix.join folds `.` and `..`, and `..` of `/` stays `/`: the walk never climbs out of the root.
    const next = posix.join(current, child);
    if (next === '/') {
      current = next;
      continue;
    }
    const onHost = join(root, next);
    const stats = await lstat(onHost).catch((error: NodeJS.ErrnoException) => {
      throw new RootedPathError(root, asked, `${next}: ${error.code ?? error.message}`);
    });
    if (!stats.isSymbolicLink()) {
      current = next;
      continue;
    }
    const link = await readlink(onHost);
    // A relative link is read from the link's directory (current stays), an absolute one from the root.
    if (posix.isAbsolute(link)) current = '/';
    push(link);
  }
  return join(root, current);
}
