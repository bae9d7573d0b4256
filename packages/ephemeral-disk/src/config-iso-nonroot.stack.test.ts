// Config ISOs built as a non-root pod's launcher builds them: uid/gid 107 holding NET_BIND_SERVICE (ambient, so
// in the effective set of the launcher and of every tool it runs). Such a process cannot be reached through
// /proc/<pid>/fd by its children's access(2), which once made genisoimage drop files silently. The shipped CLI
// builds the ISO; it is read back with xorriso and every key must be there, byte for byte. Needs root (setpriv).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { extractIso, isoFiles, scratchDir } from '../test/helpers.js';
import type { IsoTool } from './index.js';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const PRIVATE_ROOT = join(import.meta.dirname, '..', '..', '..', 'tools', 'sandbox', 'private-root.sh');
const POD_UID = 107;
const NET_BIND_SERVICE_BIT = 10n;
const AS_POD_USER = [
  `--reuid=${POD_UID}`,
  `--regid=${POD_UID}`,
  '--clear-groups',
  '--inh-caps=-all,+net_bind_service',
  '--ambient-caps=-all,+net_bind_service',
  '--',
];

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
});
beforeEach(() => {
  ({ dir, cleanup } = scratchDir());
  chmodSync(dir, 0o755);
});
afterEach(() => cleanup());

function asPodUser(tool: IsoTool, command: string[]) {
  const env = { ...process.env, VIRT_EPHEMERAL_DISK_ISO_TOOL: tool };
  // repo-view: the CLI stays reachable for uid 107 from a clone under a directory others cannot search.
  const result = spawnSync(PRIVATE_ROOT, ['repo-view', '--', 'setpriv', ...AS_POD_USER, ...command], {
    encoding: 'utf8',
    env,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A configMap volume as the kubelet's atomic writer lays it out, with a nested (downwardAPI-style) item. */
function atomicWriterVolume(): string {
  const source = join(dir, 'config-map', 'app');
  const stamp = join(source, '..2026_12_01_05_00_00.000000001');
  mkdirSync(join(stamp, 'labels'), { recursive: true });
  writeFileSync(join(stamp, 'app.properties'), 'color=blue\n');
  writeFileSync(join(stamp, 'motd'), 'hello guest\n');
  writeFileSync(join(stamp, 'labels', 'tier'), 'web\n');
  symlinkSync('..2026_12_01_05_00_00.000000001', join(source, '..data'));
  for (const key of ['app.properties', 'motd', 'labels']) symlinkSync(`..data/${key}`, join(source, key));
  return source;
}

/** The pod's writable volume for the ISOs, owned by the pod's user as KubeVirt's emptyDir is. */
function disksDir(): string {
  const disks = join(dir, 'config-map-disks');
  mkdirSync(disks);
  chownSync(disks, POD_UID, POD_UID);
  return disks;
}

describe.each<IsoTool>(['genisoimage', 'xorriso'])('config ISO as uid 107 with NET_BIND_SERVICE (%s)', (tool) => {
  it('the builder runs with the capability effective, as a non-root launcher does', () => {
    const status = asPodUser(tool, ['cat', '/proc/self/status']);
    expect(status.code).toBe(0);
    const effective = BigInt(`0x${/^CapEff:\s*([0-9a-f]+)$/m.exec(status.stdout)?.[1] ?? '0'}`);
    expect(effective).toBe(1n << NET_BIND_SERVICE_BIT);
    expect(/^Uid:\s*(\d+)/m.exec(status.stdout)?.[1]).toBe(String(POD_UID));
  });

  it('every key of the volume is in the ISO, byte for byte, and nothing else is left beside it', () => {
    const source = atomicWriterVolume();
    const disks = disksDir();
    const target = join(disks, 'app.iso');
    const built = asPodUser(tool, ['node', CLI, 'config-iso', '--source', source, '--target', target, '--quiet']);
    expect(built).toMatchObject({ code: 0, stdout: `${target}\n` });
    expect(isoFiles(target)).toEqual(['/app.properties', '/labels/tier', '/motd']);
    const out = extractIso(target, join(dir, 'out'));
    expect(readFileSync(join(out, 'app.properties'), 'utf8')).toBe('color=blue\n');
    expect(readFileSync(join(out, 'motd'), 'utf8')).toBe('hello guest\n');
    expect(readFileSync(join(out, 'labels', 'tier'), 'utf8')).toBe('web\n');
    expect(readdirSync(disks)).toEqual(['app.iso']);
  });

  it('a key planted as a link out of the volume fails the build: no ISO, no staged copy', () => {
    const source = atomicWriterVolume();
    writeFileSync(join(dir, 'node-secret'), 'not for the guest\n');
    chmodSync(join(dir, 'node-secret'), 0o644);
    symlinkSync(join(dir, 'node-secret'), join(source, 'stolen'));
    symlinkSync('../../node-secret', join(source, 'climbing'));
    const disks = disksDir();
    const target = join(disks, 'app.iso');
    const built = asPodUser(tool, ['node', CLI, 'config-iso', '--source', source, '--target', target, '--quiet']);
    expect(built.code).toBe(1);
    expect(built.stderr).toMatch(/refusing entry "climbing" of config volume .*: a link leads out of the volume/);
    expect(readdirSync(disks)).toEqual([]);
  });
});
