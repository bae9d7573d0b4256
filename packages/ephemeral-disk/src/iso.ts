// Builds ISO9660 images (Joliet + Rock Ridge) with genisoimage when present (~13 ms) or xorriso's mkisofs
// emulation (~120 ms). Output goes to a temp file beside the target and is renamed over it, so QEMU never
// opens a half-written ISO and a rebuild replaces the old one in one step.
import { constants } from 'node:fs';
import { access, lstat, unlink } from 'node:fs/promises';
import { basename, delimiter, join } from 'node:path';
import { publishReplace, removeStaleTemps, tempPathFor } from './atomic.js';
import { createExclusive, fdPath, refuseNonRegular, type PinnedDir } from './beneath.js';
import { InvalidIsoLabelError, UnsafePathError } from './errors.js';
import { checkIsoContent } from './iso-check.js';
import { setQemuOwnership } from './ownership.js';
import { run } from './run.js';

export type IsoTool = 'genisoimage' | 'xorriso';

export type IsoContent =
  /** Every file under one directory, at the ISO root. */
  | { kind: 'directory'; dir: string }
  /** Named entries (ISO name -> host path), symlinks followed. */
  | { kind: 'graft'; entries: ReadonlyArray<readonly [string, string]> };

export interface IsoBuild {
  /** The directory the ISO goes to, held open (beneath.ts), and the ISO's name in it. */
  dir: PinnedDir;
  name: string;
  label: string;
  content: IsoContent;
  /** Kill the tool after this long; cloud-init ISOs use 10 s. */
  timeoutMs?: number;
  tool?: IsoTool;
}

const MAX_LABEL = 32;
const ISO_MODE = 0o644;

/** ISO9660 volume ids hold at most 32 characters; control characters would break tools reading them. */
export function validateIsoLabel(label: string): void {
  if (label.length === 0) throw new InvalidIsoLabelError(label, 'must not be empty');
  if (label.length > MAX_LABEL) throw new InvalidIsoLabelError(label, `must be at most ${MAX_LABEL} characters`);
  if (!/^[\x20-\x7e]+$/.test(label)) throw new InvalidIsoLabelError(label, 'must be printable ASCII');
}

async function onPath(tool: string): Promise<boolean> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      await access(join(dir, tool), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

let detected: Promise<IsoTool> | undefined;

/** genisoimage when installed, else xorriso; VIRT_EPHEMERAL_DISK_ISO_TOOL forces one. */
export function detectIsoTool(): Promise<IsoTool> {
  const forced = process.env['VIRT_EPHEMERAL_DISK_ISO_TOOL'];
  if (forced === 'genisoimage' || forced === 'xorriso') return Promise.resolve(forced);
  detected ??= onPath('genisoimage').then((found) => (found ? 'genisoimage' : 'xorriso'));
  return detected;
}

/** Graft points split on an unescaped "=", so both sides escape "\" and "=". */
function graftPoint(name: string, path: string): string {
  const escape = (text: string) => text.replace(/\\/g, '\\\\').replace(/=/g, '\\=');
  return `${escape(name)}=${escape(path)}`;
}

export function isoArgs(tool: IsoTool, output: string, label: string, content: IsoContent): string[] {
  const head = tool === 'xorriso' ? ['-as', 'mkisofs'] : [];
  const common = ['-quiet', '-output', output, '-volid', label, '-joliet', '-rock'];
  // Cylinder alignment only exists in xorriso; it pads the image for partition-table readers.
  const align = tool === 'xorriso' ? ['-partition_cyl_align', 'on'] : [];
  if (content.kind === 'directory') return [...head, ...common, ...align, content.dir];
  const grafts = content.entries.map(([name, path]) => graftPoint(name, path));
  return [...head, ...common, '-follow-links', '-graft-points', ...align, ...grafts];
}

export interface BuiltIso {
  path: string;
  label: string;
  size: bigint;
  tool: IsoTool;
}

/**
 * Builds into a temp file this call created exclusively, then renames it over the target. A link or FIFO
 * planted at the target's name is refused, not replaced: whoever planted it expected it to be followed.
 */
export async function buildIso(build: IsoBuild): Promise<BuiltIso> {
  validateIsoLabel(build.label);
  const tool = build.tool ?? (await detectIsoTool());
  const { dir, name } = build;
  await refuseNonRegular(dir, name);
  await removeStaleTemps(dir.at(name));
  const temp = basename(tempPathFor(name));
  const file = await createExclusive(dir, temp, ISO_MODE);
  let size: bigint;
  try {
    // The tool gets the temp's name inside the held directory (xorriso refuses a /proc/<pid>/fd/<n> link as
    // output); it truncates and writes the file created above, which is checked again afterwards.
    // A directory's content is named relative to the tool's working directory: the ISO tools check each input
    // with access(2), which cannot pass /proc/<pid>/fd of a launcher holding a capability (a non-root pod's
    // NET_BIND_SERVICE) and then silently skips the file (genisoimage) or fails (xorriso). The directory is
    // entered through its held path all the same, so nothing planted on the way is followed.
    const content: IsoContent = build.content.kind === 'directory' ? { kind: 'directory', dir: '.' } : build.content;
    const args = isoArgs(tool, dir.at(temp), build.label, content);
    await run(tool, args, {
      ...(build.timeoutMs === undefined ? {} : { timeoutMs: build.timeoutMs }),
      ...(build.content.kind === 'directory' ? { cwd: build.content.dir } : {}),
    });
    const written = await file.stat({ bigint: true });
    const named = await lstat(dir.at(temp), { bigint: true });
    if (named.ino !== written.ino || named.dev !== written.dev) throw new UnsafePathError(dir.shown(temp), 'symlink');
    // Read back before publishing: a tool that skipped a file fails the build (iso-check.ts).
    await checkIsoContent(tool, dir.at(''), temp, dir.shown(name), build.content);
    await setQemuOwnership(fdPath(file));
    size = written.size;
  } catch (error) {
    await unlink(dir.at(temp)).catch(() => undefined);
    throw error;
  } finally {
    await file.close();
  }
  await publishReplace(dir.at(temp), dir.at(name));
  return { path: dir.shown(name), label: build.label, size, tool };
}
