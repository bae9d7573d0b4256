import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isoVolumeId, qemuInfo, scratchDir, sh } from '../test/helpers.js';

// The CLI is tested as shipped: the built dist/cli.js, run by node as a separate process.
const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');

let dir: string;
let cleanup: () => void;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
});
beforeEach(() => ({ dir, cleanup } = scratchDir()));
afterEach(() => cleanup());

function cli(...args: string[]) {
  const result = spawnSync('node', [CLI, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('virt-ephemeral-disk', () => {
  it('write-layer prints the layer path, twice the same', () => {
    const backing = join(dir, 'base.qcow2');
    sh('qemu-img', ['create', '-q', '-f', 'qcow2', backing, '2M']);
    const args = ['write-layer', '--dir', join(dir, 'eph'), '--volume', 'root', '--backing', backing];
    const first = cli(...args);
    expect(first).toMatchObject({ code: 0, stdout: `${join(dir, 'eph', 'disk-data', 'root', 'disk.qcow2')}\n` });
    // Progress lines are JSON with the launcher's log keys.
    const line = JSON.parse(first.stderr.split('\n')[0] ?? '') as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(expect.arrayContaining(['component', 'level', 'msg', 'pos', 'timestamp']));
    expect(cli(...args, '--backing-format', 'qcow2', '--quiet')).toEqual({ code: 0, stdout: first.stdout, stderr: '' });
    expect(qemuInfo(first.stdout.trim())['backing-filename-format']).toBe('qcow2');
  });

  it.each([
    [['write-layer', '--dir', 'D', '--volume', 'root', '--backing', 'MISSING'], /backing file .*MISSING not found/],
    [['write-layer', '--dir', 'D', '--volume', '../etc', '--backing', 'x'], /invalid volume name "..\/etc"/],
    [['write-layer', '--dir', 'D', '--volume', 'root'], /missing --backing/],
    [['write-layer', '--dir', 'D', '--volume', 'root', '--backing', 'x', '--bogus'], /Unknown option '--bogus'/],
    [['empty', '--dir', 'D', '--volume', 'v', '--capacity', '1GB'], /invalid quantity "1GB"/],
    [['empty', '--dir', 'D', '--volume', 'v', '--capacity', '100Ki'], /too low/],
    [
      ['cloud-init', '--dir', 'D', '--namespace', 'ns', '--name', 'vm', '--user-data', 'NOFILE'],
      /cannot read .*NOFILE/,
    ],
    [['cloud-init', '--dir', 'D', '--namespace', 'ns', '--name', 'vm', '--user-data', 'x', '--type', 'y'], /--type/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [[], /missing command/],
  ])('bad input %j exits 2 with one line', (args, message) => {
    const resolved = args.map((a) => (/^[A-Z]+$/.test(a) ? join(dir, a) : a));
    const result = cli(...resolved);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an unsupported backing image is bad input naming the format', () => {
    const backing = join(dir, 'base.vmdk');
    sh('qemu-img', ['create', '-q', '-f', 'vmdk', backing, '1M']);
    const result = cli('write-layer', '--quiet', '--dir', dir, '--volume', 'root', '--backing', backing);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(/unsupported image format "vmdk"/);
  });

  it('empty and cloud-init print their paths', () => {
    const empty = cli('empty', '--quiet', '--dir', join(dir, 'empty'), '--volume', 'v', '--capacity', '1e9');
    expect(empty).toMatchObject({ code: 0, stdout: `${join(dir, 'empty', 'v.qcow2')}\n` });
    expect(qemuInfo(join(dir, 'empty', 'v.qcow2'))['virtual-size']).toBe(953 * 1048576);
    writeFileSync(join(dir, 'ud'), '#cloud-config\n');
    const args = ['--dir', join(dir, 'eph'), '--namespace', 'ns', '--name', 'vm', '--user-data', join(dir, 'ud')];
    const iso = cli('cloud-init', '--quiet', ...args, '--type', 'configdrive');
    expect(iso).toMatchObject({
      code: 0,
      stdout: `${join(dir, 'eph', 'cloud-init-data', 'ns', 'vm', 'configdrive.iso')}\n`,
    });
    expect(isoVolumeId(iso.stdout.trim())).toBe('config-2');
  });

  it('a failing tool (not bad input) exits 1', () => {
    // The ephemeral dir is a regular file, so mkdir fails: a machine problem, not the caller's input.
    const backing = join(dir, 'base.raw');
    sh('qemu-img', ['create', '-q', '-f', 'raw', backing, '1M']);
    writeFileSync(join(dir, 'eph'), 'not a directory');
    const result = cli('write-layer', '--quiet', '--dir', join(dir, 'eph'), '--volume', 'root', '--backing', backing);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
