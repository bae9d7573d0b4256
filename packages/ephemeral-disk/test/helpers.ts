// Shared by the tests: scratch directories and the real tools used to read results back.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function scratchDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'vlt-ephemeral-disk-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function sh(tool: string, args: string[]): string {
  return execFileSync(tool, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function qemuInfo(path: string): Record<string, unknown> {
  return JSON.parse(sh('qemu-img', ['info', '-U', '--output=json', path])) as Record<string, unknown>;
}

/** Every file and directory below `dir`, relative, sorted. */
export function listTree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

export function isoVolumeId(iso: string): string {
  const out = sh('xorriso', ['-indev', iso, '-pvd_info']);
  const match = /^Volume Id\s*:\s*(.*)$/m.exec(out);
  if (match?.[1] === undefined) throw new Error(`no Volume Id in xorriso output: ${out}`);
  return match[1].trim();
}

/** Paths in the ISO's Rock Ridge tree, e.g. ["/meta-data", "/user-data"]. */
export function isoFiles(iso: string): string[] {
  const out = execFileSync('xorriso', ['-indev', iso, '-find', '/', '-type', 'f'], { encoding: 'utf8', stdio: 'pipe' });
  return out
    .split('\n')
    .map((line) => line.trim().replace(/^'(.*)'$/, '$1'))
    .filter((line) => line.startsWith('/'))
    .sort();
}

/** Extracts the whole ISO into a new directory and returns it. */
export function extractIso(iso: string, into: string): string {
  sh('xorriso', ['-osirrox', 'on', '-indev', iso, '-extract', '/', into]);
  return into;
}
