// Builds ISO9660 images (Joliet + Rock Ridge) with genisoimage when present (~13 ms) or xorriso's mkisofs
// emulation (~120 ms). Output goes to a temp file beside the target and is renamed over it, so QEMU never
// opens a half-written ISO and a rebuild replaces the old one in one step.
import { constants } from 'node:fs';
import { access, stat, unlink } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { publishReplace, removeStaleTemps, tempPathFor } from './atomic.js';
import { InvalidIsoLabelError } from './errors.js';
import { setQemuOwnership } from './ownership.js';
import { run } from './run.js';

export type IsoTool = 'genisoimage' | 'xorriso';

export type IsoContent =
  /** Every file under one directory, at the ISO root. */
  | { kind: 'directory'; dir: string }
  /** Named entries (ISO name -> host path), symlinks followed. */
  | { kind: 'graft'; entries: ReadonlyArray<readonly [string, string]> };

export interface IsoBuild {
  target: string;
  label: string;
  content: IsoContent;
  /** Kill the tool after this long; cloud-init ISOs use 10 s. */
  timeoutMs?: number;
  tool?: IsoTool;
}

const MAX_LABEL = 32;

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

export async function buildIso(build: IsoBuild): Promise<BuiltIso> {
  validateIsoLabel(build.label);
  const tool = build.tool ?? (await detectIsoTool());
  await removeStaleTemps(build.target);
  const temp = tempPathFor(build.target);
  try {
    const args = isoArgs(tool, temp, build.label, build.content);
    await run(tool, args, build.timeoutMs === undefined ? {} : { timeoutMs: build.timeoutMs });
    await setQemuOwnership(temp);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await publishReplace(temp, build.target);
  const size = (await stat(build.target, { bigint: true })).size;
  return { path: build.target, label: build.label, size, tool };
}
