// Reads a freshly built ISO back and compares its tree with what was asked for. An ISO tool can exit 0 and
// still leave a file out (genisoimage skips an input its access(2) check refuses, with a warning at most), and
// a guest given such an ISO would miss a key without anyone knowing: a difference fails the build instead.
import { constants } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { IncompleteIsoError } from './errors.js';
import type { IsoContent, IsoTool } from './iso.js';
import { run } from './run.js';

async function onPath(tool: string): Promise<boolean> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    if (
      await access(join(dir, tool), constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** Every path the content puts in the ISO ("/key", "/dir", "/dir/file"); for grafts, their top-level names. */
async function expectedPaths(content: IsoContent): Promise<{ paths: string[]; exact: boolean }> {
  if (content.kind === 'graft') return { paths: content.entries.map(([name]) => `/${name}`), exact: false };
  const entries = await readdir(content.dir, { recursive: true });
  return { paths: entries.map((entry) => `/${entry}`), exact: true };
}

/**
 * The ISO's Rock Ridge tree, files and directories, without the root. `cwd` and `name` name the ISO relative to a
 * working directory, so the reader never needs access(2) through /proc/<pid>/fd (the same trap as the builders').
 */
export async function isoTree(tool: IsoTool, cwd: string, name: string): Promise<string[]> {
  // genisoimage's package ships isoinfo; xorriso reads its own and anyone's ISOs.
  if (tool === 'genisoimage' && (await onPath('isoinfo'))) {
    const { stdout } = await run('isoinfo', ['-R', '-f', '-i', name], { cwd });
    return stdout.split('\n').filter((line) => line.startsWith('/'));
  }
  const { stdout } = await run('xorriso', ['-indev', name, '-find', '/'], { cwd });
  return stdout
    .split('\n')
    .map((line) => line.trim().replace(/^'(.*)'$/, '$1'))
    .filter((line) => line.startsWith('/') && line !== '/');
}

/** Throws IncompleteIsoError naming every path that is missing (or, for a directory, not asked for). */
export async function checkIsoContent(
  tool: IsoTool,
  cwd: string,
  name: string,
  shown: string,
  content: IsoContent,
): Promise<void> {
  const expected = await expectedPaths(content);
  const found = new Set(await isoTree(tool, cwd, name));
  const missing = expected.paths.filter((path) => !found.has(path)).sort();
  const asked = new Set(expected.paths);
  const unexpected = expected.exact ? [...found].filter((path) => !asked.has(path)).sort() : [];
  if (missing.length > 0 || unexpected.length > 0) throw new IncompleteIsoError(shown, missing, unexpected);
}
